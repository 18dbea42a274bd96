import { createHash } from 'node:crypto';
import { OidOffsetTable } from '../../../shared/git/oid-offset-table';

const oidOf = (i: number) => createHash('sha1').update(String(i)).digest('hex');

describe('a pack’s objects by SHA-1, as a table', () => {
  // isomorphic-git asks a pack index's `offsets` for has/get/keys/size (readObjectPacked, GitPackIndex.read)
  const entries = Array.from({ length: 1_000 }, (_, i) => [oidOf(i), 12 + 97 * i] as const);
  const table = OidOffsetTable.of(entries);

  it('finds each object’s offset, whatever order the entries came in', () => {
    for (const [oid, offset] of entries) {
      expect(table.has(oid)).toBe(true);
      expect(table.get(oid)).toBe(offset);
    }
    expect(table.size).toBe(1_000);
    expect(new Set(table.keys())).toEqual(new Set(entries.map(([oid]) => oid)));
  });

  it('finds no object it was not given, nor anything that is not a SHA-1', () => {
    for (let i = 1_000; i < 1_100; i++) expect(table.has(oidOf(i))).toBe(false);
    expect(table.get(oidOf(1_000))).toBeUndefined();
    // a prefix of a held SHA-1, the same with a digit that is not hex, and nothing at all
    const held = entries[500]![0];
    expect(table.has(held.slice(0, 38))).toBe(false);
    expect(table.has(`${held.slice(0, 39)}z`)).toBe(false);
    expect(table.has('')).toBe(false);
  });
});
