/** Twenty bytes to parse a sought SHA-1 into: lookups are synchronous, so one serves them all. */
const sought = Buffer.alloc(20);

/**
 * A pack's objects by SHA-1, each to its offset in the pack, as two flat columns sorted by SHA-1:
 * 28 bytes an object outside the heap. isomorphic-git parses an index into a Map keyed by
 * 40-character strings, about 110 bytes an object on the heap, which a long-lived worker keeps for
 * every pack of every branch it publishes to, and V8 lets its heap grow to a few times what it keeps.
 * Answers what isomorphic-git asks of a pack's `offsets` (`has`, `get`, `keys`, `size`).
 */
export class OidOffsetTable {
  private constructor(
    private readonly oids: Buffer,
    private readonly offsets: Float64Array,
  ) {}

  /** The table of `entries` (SHA-1 in hex, offset), in any order. */
  static of(entries: Iterable<readonly [string, number]>): OidOffsetTable {
    const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const oids = Buffer.allocUnsafeSlow(20 * sorted.length);
    const offsets = new Float64Array(sorted.length);
    sorted.forEach(([oid, offset], i) => {
      if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error(`not a SHA-1: ${oid}`);
      oids.write(oid, 20 * i, 'hex');
      offsets[i] = offset;
    });
    return new OidOffsetTable(oids, offsets);
  }

  get size(): number {
    return this.offsets.length;
  }

  has(oid: string): boolean {
    return this.indexOf(oid) >= 0;
  }

  get(oid: string): number | undefined {
    const at = this.indexOf(oid);
    return at < 0 ? undefined : this.offsets[at];
  }

  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.size; i++) yield this.oids.toString('hex', 20 * i, 20 * i + 20);
  }

  /** Where `oid` is in the columns, or -1: a binary search, without allocating. */
  private indexOf(oid: string): number {
    // anything but 40 hex digits is in no pack (a write of hex stops at the first pair that is not)
    if (oid.length !== 40 || sought.write(oid, 'hex') !== 20) return -1;
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = sought.compare(this.oids, 20 * middle, 20 * middle + 20);
      if (order === 0) return middle;
      if (order > 0) low = middle + 1;
      else high = middle;
    }
    return -1;
  }
}
