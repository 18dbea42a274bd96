/**
 * A pack's objects by SHA-1, each to its offset in the pack, as columns sorted by SHA-1, outside
 * the heap: 32 bytes an object. isomorphic-git parses an index into a Map keyed by 40-character
 * strings, about 110 bytes an object on the heap, which a long-lived worker keeps for every pack of
 * every branch it publishes to, and V8 lets its heap grow to a few times what it keeps.
 * Answers what isomorphic-git asks of a pack's `offsets` (`has`, `get`, `keys`, `size`), for every
 * pack on every read: a lookup searches the SHA-1s' first four bytes as numbers, and compares
 * bytes only where those match.
 */
export class OidOffsetTable {
  private constructor(
    private readonly oids: Buffer,
    /** Each SHA-1's first four bytes, as a number. */
    private readonly prefixes: Uint32Array,
    private readonly offsets: Float64Array,
  ) {}

  /**
   * The table of `parsed` (isomorphic-git's Map, in its index's SHA-1 order): one pass, a sort only
   * were it out of order. Throws on a key that is not a SHA-1.
   */
  static of(parsed: ReadonlyMap<string, number>): OidOffsetTable {
    let entries: Iterable<[string, number]> = parsed;
    let previous = '';
    for (const oid of parsed.keys()) {
      if (oid <= previous) {
        entries = [...parsed].sort(([a], [b]) => (a < b ? -1 : 1));
        break;
      }
      previous = oid;
    }
    const oids = Buffer.allocUnsafeSlow(20 * parsed.size);
    const prefixes = new Uint32Array(parsed.size);
    const offsets = new Float64Array(parsed.size);
    let i = 0;
    for (const [oid, offset] of entries) {
      if (oid.length !== 40 || oids.write(oid, 20 * i, 'hex') !== 20) throw new Error(`not a SHA-1: ${oid}`);
      prefixes[i] = oids.readUInt32BE(20 * i);
      offsets[i++] = offset;
    }
    return new OidOffsetTable(oids, prefixes, offsets);
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

  /** Where `oid` is in the columns, or -1. */
  private indexOf(oid: string): number {
    const prefix = oid.length === 40 ? hexPrefix(oid) : -1;
    if (prefix < 0) return -1;
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.prefixes[middle]! < prefix) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < this.size && this.prefixes[at] === prefix; at++)
      if (this.holdsAt(at, oid)) return at;
    return -1;
  }

  /** Whether the SHA-1 at `at` is `oid`, compared digit by digit (no buffer made per lookup). */
  private holdsAt(at: number, oid: string): boolean {
    for (let k = 0; k < 20; k++) {
      const high = hexDigit(oid.charCodeAt(2 * k));
      const low = hexDigit(oid.charCodeAt(2 * k + 1));
      if (high < 0 || low < 0 || high * 16 + low !== this.oids[20 * at + k]) return false;
    }
    return true;
  }
}

/** The number the first 8 hex digits of `oid` spell, or -1 when they are not hex digits. */
function hexPrefix(oid: string): number {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const digit = hexDigit(oid.charCodeAt(i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** A hex digit's value, or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}
