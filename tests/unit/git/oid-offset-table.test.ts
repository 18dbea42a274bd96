import { createHash } from 'node:crypto';
import { OidOffsetTable } from '../../../shared/git/oid-offset-table';

const oidOf = (i: number) => createHash('sha1').update(String(i)).digest('hex');

describe('a pack’s objects by SHA-1, as a table', () => {
  // isomorphic-git asks a pack index's `offsets` for has/get/keys/size (readObjectPacked, GitPackIndex.read)
  const entries = Array.from({ length: 1_000 }, (_, i) => ({ oid: oidOf(i), offset: 12 + 97 * i }));
  // and two SHA-1s sharing their first four bytes, which the table searches by
  const twins = ['0123456789abcdef0123456789abcdef01234567', '01234567ffffffffffffffffffffffffffffffff'];
  entries.push(...twins.map((oid, i) => ({ oid, offset: 200_000 + i })));
  // in the index's order, as isomorphic-git's Map has them, and in any other
  const table = OidOffsetTable.of(new Map(entries.map(({ oid, offset }) => [oid, offset])));
  const sorted = OidOffsetTable.of(
    new Map([...entries].sort((a, b) => (a.oid < b.oid ? -1 : 1)).map(({ oid, offset }) => [oid, offset])),
  );

  it('finds each object’s offset', () => {
    for (const { oid, offset } of entries) {
      expect(table.has(oid)).toBe(true);
      expect(table.get(oid)).toBe(offset);
      expect(sorted.get(oid)).toBe(offset);
    }
    expect(table.size).toBe(entries.length);
    expect(new Set(table.keys())).toEqual(new Set(entries.map(({ oid }) => oid)));
  });

  it('finds no object it was not given, nor anything that is not a SHA-1', () => {
    for (let i = 1_000; i < 1_100; i++) expect(table.has(oidOf(i))).toBe(false);
    expect(table.get(oidOf(1_000))).toBeUndefined();
    // the first four bytes of two held SHA-1s, the rest of neither
    expect(table.has('01234567aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBe(false);
    // a prefix of a held SHA-1, the same with a last digit that is not hex, and nothing at all
    const held = entries[500]!.oid;
    expect(table.has(held.slice(0, 38))).toBe(false);
    expect(table.has(`${held.slice(0, 39)}z`)).toBe(false);
    expect(table.has(`z${held.slice(1)}`)).toBe(false);
    expect(table.has('')).toBe(false);
  });

  it('refuses a key that is not a SHA-1', () => {
    expect(() => OidOffsetTable.of(new Map([['not a sha', 12]]))).toThrow(/not a SHA-1/);
  });
});
