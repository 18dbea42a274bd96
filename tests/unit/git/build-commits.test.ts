/**
 * The tree a chain of publications builds, checked against trees computed from scratch by a plain
 * model of git's tree format. The Git layer keeps each publication's tree view for the next one
 * (order, serialized entries), so the chains here run publication after publication on one process.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { buildCommits } from '../../../shared/git/build-commits';
import { encodePack } from '../../../shared/git/encode-pack';
import { createObjectStore } from '../../../shared/git/object-store';
import type { TreeEntry } from '../../../shared/git/tree-editor';
import { unpackObjects } from '../../../shared/git/unpack-objects';
import { aWrite } from '../../support/git/a-write';
import { storedObjects } from '../../support/git/stored-objects';

type Files = Map<string, string>;
type Op = { op: 'put'; path: string; content: string } | { op: 'delete'; path: string };

const sha1 = (type: string, data: Buffer) =>
  createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');

/** The SHA of the tree holding `files`, the way git computes it. */
function treeOf(files: Files): string {
  type Folder = Map<string, Folder | string>;
  const root: Folder = new Map();
  for (const [path, content] of files) {
    const parts = path.split('/');
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      if (!folder.has(part)) folder.set(part, new Map());
      folder = folder.get(part) as Folder;
    }
    folder.set(parts.at(-1)!, content);
  }
  const write = (folder: Folder): string => {
    const entries = [...folder].map(([name, value]) =>
      typeof value === 'string'
        ? { sortName: Buffer.from(name), head: `100644 ${name}`, oid: sha1('blob', Buffer.from(value)) }
        : { sortName: Buffer.from(`${name}/`), head: `40000 ${name}`, oid: write(value) },
    );
    entries.sort((a, b) => Buffer.compare(a.sortName, b.sortName));
    return sha1(
      'tree',
      Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.head}\0`), Buffer.from(e.oid, 'hex')])),
    );
  };
  return write(root);
}

/** Trees by SHA, read back from the pack of each publication's objects: what a cache would read. */
function treeReader() {
  const trees = new Map<string, TreeEntry[]>();
  const commits = new Map<string, string>();
  return {
    async remember(store: ReturnType<typeof createObjectStore>) {
      const { pack } = await encodePack({ store });
      const pieces: Buffer[] = [];
      for await (const piece of pack) pieces.push(piece);
      const unpacked = unpackObjects({ pack: Buffer.concat(pieces) }).objects;
      // a wrong delta reads back as another object than the one stored
      expect(unpacked.map(({ oid }) => oid).sort()).toEqual(
        (await storedObjects(store)).map(([oid]) => oid).sort(),
      );
      for (const { oid, type, data } of unpacked) {
        if (type === 'commit')
          commits.set(oid, data.toString('utf8').slice('tree '.length, 'tree '.length + 40));
        if (type !== 'tree') continue;
        const entries: TreeEntry[] = [];
        for (let at = 0; at < data.length; ) {
          const space = data.indexOf(0x20, at);
          const nul = data.indexOf(0, space);
          const mode = data.toString('utf8', at, space);
          entries.push({
            mode,
            path: data.toString('utf8', space + 1, nul),
            oid: data.toString('hex', nul + 1, nul + 21),
            type: mode === '40000' ? 'tree' : 'blob',
          });
          at = nul + 21;
        }
        trees.set(oid, entries);
      }
    },
    treeOfCommit: (oid: string) => commits.get(oid)!,
    readTree: async (oid: string) => trees.get(oid) ?? [],
  };
}

/** Publishes each publication's writes on the tree the previous one ended with. */
async function publishChain(
  publications: Op[][][],
): Promise<{ built: string[]; expected: string[]; deltas: number }> {
  const reader = treeReader();
  const files: Files = new Map();
  let baseTree: string | null = null;
  let head: string | null = null;
  const built: string[] = [];
  const expected: string[] = [];
  let deltas = 0;
  for (const writes of publications) {
    const store = createObjectStore();
    const result = await buildCommits({
      base: head,
      baseTree,
      writes: writes.map((operations) => aWrite({ operations })),
      readTree: reader.readTree,
      store,
    });
    if (result.kind !== 'built') throw new Error(`refused: ${result.cause}`);
    await reader.remember(store);
    for (const [, object] of await storedObjects(store)) if (object.deltaBase !== undefined) deltas++;
    for (const operations of writes)
      for (const op of operations) {
        if (op.op === 'put') files.set(op.path, op.content);
        else files.delete(op.path);
      }
    if (result.head === head) continue; // nothing changed: no commit, no tree to compare
    head = result.head;
    baseTree = reader.treeOfCommit(result.head!);
    built.push(baseTree);
    expected.push(treeOf(files));
  }
  return { built, expected, deltas };
}

// folders never end in .yaml and files always do, so no path goes through a file
const folder = fc.constantFrom('a', 'a-b', 'a.b', 'ns', 'é', 'Z');
const file = fc.constantFrom('a.yaml', 'a-b.yaml', 'a0.yaml', 'b.yaml', 'é.yaml', 'A.yaml');
const path = fc
  .tuple(fc.array(folder, { maxLength: 2 }), file)
  .map(([folders, name]) => [...folders, name].join('/'));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('put' as const), path, content: fc.constantFrom('1', '2', '3') }),
  fc.record({ op: fc.constant('delete' as const), path }),
);

describe('building commits publication after publication', () => {
  it('given any chain of puts and deletes, when each publication starts from the last tree, then every tree is the one git computes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 5,
        }),
        async (publications) => {
          const { built, expected } = await publishChain(publications);
          expect(built).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('given a large folder, when several writes of one publication edit it, then each later version is a delta on the one before and every tree is right', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(
            fc.record({
              op: fc.constantFrom('put' as const, 'delete' as const),
              index: fc.integer({ min: 0, max: 400 }),
              content: fc.constantFrom('1', '2'),
            }),
            { minLength: 1, maxLength: 8 },
          ),
          { minLength: 2, maxLength: 12 },
        ),
        async (edits) => {
          const big: Op[] = Array.from({ length: 300 }, (_, i) => ({
            op: 'put',
            path: `ns/cm-${i * 2}.yaml`,
            content: '0',
          }));
          // each write also adds a file of its own, so that it changes the folder
          const writes = edits.map((ops, w) => [
            ...ops.map(({ op, index, content }): Op => {
              const path = `ns/cm-${index}.yaml`;
              return op === 'put' ? { op, path, content } : { op, path };
            }),
            { op: 'put' as const, path: `ns/new-${w}.yaml`, content: '1' },
          ]);
          const { built, expected, deltas } = await publishChain([[big], writes, writes.slice().reverse()]);
          expect(built).toEqual(expected);
          expect(deltas).toBeGreaterThan(0);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('given a file replaced by a folder of the same name, when later names sort around it, then the folder keeps its place as "name/"', async () => {
    const { built, expected } = await publishChain([
      [[{ op: 'put', path: 'k', content: '1' }], [{ op: 'put', path: 'k.yaml', content: '2' }]],
      [
        [
          { op: 'delete', path: 'k' },
          { op: 'put', path: 'k/inner.yaml', content: '3' },
        ],
      ],
      [[{ op: 'put', path: 'k-1', content: '4' }], [{ op: 'put', path: 'k0', content: '5' }]],
      [[{ op: 'delete', path: 'k/inner.yaml' }], [{ op: 'put', path: 'k', content: '6' }]],
    ]);

    expect(built).toEqual(expected);
  });
});
