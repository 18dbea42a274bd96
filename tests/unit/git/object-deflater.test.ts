/**
 * The objects a publication creates are deflated one after another (zlib streams, as a pack's
 * entries are: Documentation/gitformat-pack.txt), whether one zlib context is reused (node's
 * binding) or each object is deflated alone; either way each inflates back to the object.
 */
import { inflateSync } from 'node:zlib';
import { createObjectDeflater } from '../../../shared/git/object-deflater';
import { createObjectStore } from '../../../shared/git/object-store';
import { storedObjects } from '../../support/git/stored-objects';

const objects = [
  'apiVersion: v1\nkind: ConfigMap\n',
  '',
  'x'.repeat(70_000),
  // random bytes do not compress: the output is larger than the input, within zlib's bound
  Buffer.from(Array.from({ length: 5_000 }, (_, i) => (i * 7919 + 13) % 251)).toString('latin1'),
  'name: last\n',
].map((text) => Buffer.from(text, 'latin1'));

describe.each([
  ['one zlib context reused', true],
  ['a zlib context per object', false],
] as const)('the object deflater, %s', (_name, reuse) => {
  it('deflates each object to a zlib stream of its own bytes', () => {
    const deflater = createObjectDeflater({ reuse });
    // on node 20 to 24 the reused context is what runs: a fallback taken unseen would hide its cost
    expect(deflater.reusesContext).toBe(reuse);
    for (const data of objects) {
      const deflated = Buffer.from(deflater.deflate(data));
      expect(inflateSync(deflated).equals(data)).toBe(true);
    }
    deflater.close();
  });
});

test("a store's objects, deflated through the reused context, inflate to what was added", async () => {
  const store = createObjectStore();
  const oids = objects.map((data) => store.add('blob', data));
  const byOid = new Map((await storedObjects(store)).map(([oid, object]) => [oid, object]));
  oids.forEach((oid, i) => {
    const object = byOid.get(oid)!;
    expect(object.size).toBe(objects[i]!.length);
    expect(inflateSync(object.deflated).equals(objects[i]!)).toBe(true);
  });
});
