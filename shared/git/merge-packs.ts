import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeSortedIndex } from './encode-index';
import { baseDistance, type PackPieces } from './encode-pack';
import { type PackIndex, readPackIndex } from './read-pack-index';

const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Entries are put in pack order by sorting `offset * PLACES + entry` as plain numbers (exact below 2^53). */
const PLACES = 2 ** 21;

/** A source pack with its index, both whole in memory. */
export type PackWithIndex = { pack: Buffer; idx: Buffer };

/** Where an entry's bytes go in the merged pack: a run of a source's bytes, or a rewritten header. */
type Piece = { bytes: Buffer } | { source: number; start: number; end: number };

/**
 * Merges packs into one by copying their entries as they are: no object is inflated, deflated or
 * hashed again. An entry's extent comes from its index (up to the next entry's offset), its SHA-1
 * and CRC-32 too, and the merged index is the sources' sorted indexes merged. An object in several
 * sources is kept once, from the first that holds it. Deltas stay deltas: an ofs-delta's distance
 * to its base is rewritten for the base's new place (and its CRC-32 computed again over the new
 * header and the same deflated bytes, as git's index-pack covers the whole entry); a ref-delta
 * names its base by SHA-1 and is copied whole. Every delta's base is earlier in the merged pack,
 * so no chain can loop. Each source is checked whole first (its SHA-1 trailer over its bytes, its
 * index's checksum and count): a damaged source throws, and nothing is merged.
 */
export function mergePacks(sources: readonly PackWithIndex[]): {
  pack: PackPieces;
  idx: Buffer;
  packSha: string;
} {
  const indexes = sources.map(({ pack, idx }) => {
    const index = readPackIndex(idx);
    checkWhole(pack, index.packHash, index.count);
    return index;
  });
  const { kept, merged, oids } = mergeSorted(indexes);
  const offsets = new Float64Array(kept.length).fill(-1);
  const crcs = new Uint32Array(kept.length);
  const pieces: Piece[] = [];
  let offset = 12;
  const copy = (source: number, start: number, end: number) => {
    const last = pieces.at(-1);
    // consecutive entries of one source go as one run: a source merged whole is one write
    if (last && 'source' in last && last.source === source && last.end === start) last.end = end;
    else pieces.push({ source, start, end });
  };
  sources.forEach(({ pack }, source) => {
    const index = indexes[source]!;
    const { byPlace, places } = inPackOrder(index);
    const at = merged[source]!;
    for (let k = 0; k < byPlace.length; k++) {
      const i = byPlace[k]!;
      const position = at[i]!;
      if (kept[position] !== source) continue;
      const start = places[k]!;
      const end = k + 1 < places.length ? places[k + 1]! : pack.length - 20;
      const { type, sizeEnd, dataStart } = entryHeader(pack, start, end);
      const distance = type === OFS_DELTA ? ofsDistance(pack, sizeEnd) : 0;
      let base = -1;
      if (type === OFS_DELTA) base = offsets[at[byPlace[placeOf(places, start - distance)]!]!]!;
      else if (type === REF_DELTA) base = offsets[positionOf(indexes, merged, pack, sizeEnd)]!;
      if ((type === OFS_DELTA || type === REF_DELTA) && base < 0)
        throw new Error(`a delta at ${start} has its base after it or outside the merged packs`);
      offsets[position] = offset;
      // a source copied whole keeps its entries' distances: the entry goes as it is, with its CRC-32
      if (type === OFS_DELTA && offset - base !== distance) {
        const head = Buffer.concat([pack.subarray(start, sizeEnd), Buffer.from(baseDistance(offset - base))]);
        pieces.push({ bytes: head });
        copy(source, dataStart, end);
        crcs[position] = crc32(pack.subarray(dataStart, end), crc32(head)) >>> 0;
        offset += head.length + end - dataStart;
        continue;
      }
      copy(source, start, end);
      crcs[position] = index.crcs.readUInt32BE(4 * i);
      offset += end - start;
    }
  });
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(kept.length, 8);
  const buffers = [
    header,
    ...pieces.map((piece) =>
      'bytes' in piece ? piece.bytes : sources[piece.source]!.pack.subarray(piece.start, piece.end),
    ),
  ];
  const hash = createHash('sha1');
  for (const buffer of buffers) hash.update(buffer);
  const packHash = hash.digest();
  buffers.push(packHash);
  return {
    pack: {
      async *[Symbol.asyncIterator]() {
        yield* buffers;
      },
    },
    idx: encodeSortedIndex({ oids, crcs, offsets, packHash }),
    packSha: packHash.toString('hex'),
  };
}

/**
 * The sources' indexes merged in SHA-1 order: `kept[p]` is the source whose copy of the p-th
 * object is kept (the first holding it), `merged[s][i]` the place of source s's i-th entry, and
 * `oids` the merged SHA-1s.
 */
function mergeSorted(indexes: readonly PackIndex[]): {
  kept: Uint16Array;
  merged: Uint32Array[];
  oids: Buffer;
} {
  const total = indexes.reduce((sum, index) => sum + index.count, 0);
  const kept = new Uint16Array(total);
  const oids = Buffer.allocUnsafe(20 * total);
  const merged = indexes.map((index) => new Uint32Array(index.count));
  const next = new Uint32Array(indexes.length);
  // each source's next SHA-1 by its first four bytes: most steps compare numbers, not buffers
  const head = (s: number) => indexes[s]!.oids.readUInt32BE(20 * next[s]!);
  let count = 0;
  for (;;) {
    let least = -1;
    let second = -1;
    for (let s = 0; s < indexes.length; s++) {
      if (next[s]! >= indexes[s]!.count) continue;
      if (least < 0 || compareHeads(indexes, next, s, least, head) < 0) {
        second = least;
        least = s;
      } else if (second < 0 || compareHeads(indexes, next, s, second, head) < 0) second = s;
    }
    if (least < 0) break;
    const secondAt = second < 0 ? 0 : next[second]!;
    const prefix = head(least);
    const at = 20 * next[least]!;
    const oid = indexes[least]!.oids.subarray(at, at + 20);
    kept[count] = least;
    oid.copy(oids, 20 * count);
    for (let s = 0; s < indexes.length; s++) {
      const index = indexes[s]!;
      const i = next[s]!;
      if (i >= index.count || head(s) !== prefix) continue;
      if (s === least || index.oids.compare(oid, 0, 20, 20 * i, 20 * i + 20) === 0) {
        merged[s]![i] = count;
        next[s]!++;
      }
    }
    count++;
    // the least source's next entries that sort before every other source's next one go as a run,
    // without a look at the others: a merge of the cache's large pack with a few small ones is
    // mostly such runs. Not when the step above moved `second` on (a duplicate): its next entry
    // may then sort after a third source's.
    if (second >= 0 && next[second] !== secondAt) continue;
    const run = indexes[least]!;
    const from = next[least]!;
    const end =
      second < 0
        ? run.count
        : firstNotBefore(run.oids, from, run.count, indexes[second]!.oids, 20 * next[second]!);
    run.oids.copy(oids, 20 * count, 20 * from, 20 * end);
    kept.fill(least, count, count + end - from);
    const places = merged[least]!;
    for (let i = from; i < end; i++) places[i] = count++;
    next[least] = end;
  }
  return { kept: kept.subarray(0, count), merged, oids: oids.subarray(0, 20 * count) };
}

/**
 * The first entry in `[from, to)` of the sorted `oids` that does not sort before the SHA-1 at
 * `target[at, at+20)`: galloping (steps of 1, 2, 4, … then a binary search), as a run is often short.
 */
function firstNotBefore(oids: Buffer, from: number, to: number, target: Buffer, at: number): number {
  const before = (i: number) => target.compare(oids, 20 * i, 20 * i + 20, at, at + 20) > 0;
  if (from >= to || !before(from)) return from;
  let low = from;
  let step = 1;
  while (low + step < to && before(low + step)) {
    low += step;
    step *= 2;
  }
  // every entry up to `low` is before the target, the one at `low + step` (if any) is not
  let high = Math.min(low + step, to);
  low++;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareHeads(
  indexes: readonly PackIndex[],
  next: Uint32Array,
  a: number,
  b: number,
  head: (s: number) => number,
): number {
  const difference = head(a) - head(b);
  if (difference !== 0) return difference;
  const at = 20 * next[a]!;
  const bt = 20 * next[b]!;
  return indexes[a]!.oids.compare(indexes[b]!.oids, bt, bt + 20, at, at + 20) || a - b;
}

/** The merged place of the object whose SHA-1 is at `pack[at, at+20)` (a ref-delta's base), or -1. */
function positionOf(
  indexes: readonly PackIndex[],
  merged: readonly Uint32Array[],
  pack: Buffer,
  at: number,
): number {
  for (let s = 0; s < indexes.length; s++) {
    const { oids, count } = indexes[s]!;
    let low = 0;
    let high = count - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const order = oids.compare(pack, at, at + 20, 20 * middle, 20 * middle + 20);
      if (order === 0) return merged[s]![middle]!;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
  }
  return -1;
}

/** A source's entries in pack order, and where each starts. */
function inPackOrder(index: PackIndex): { byPlace: Uint32Array; places: Float64Array } {
  if (index.count >= PLACES) throw new Error(`a pack of ${index.count} objects is not merged here`);
  const keys = new Float64Array(index.count);
  for (let i = 0; i < index.count; i++) keys[i] = index.offsets[i]! * PLACES + i;
  keys.sort();
  if (keys.length > 0 && keys[keys.length - 1]! >= 2 ** 31 * PLACES)
    throw new Error('a pack over 2 GiB is not merged here');
  const byPlace = new Uint32Array(index.count);
  const places = new Float64Array(index.count);
  for (let k = 0; k < index.count; k++) {
    byPlace[k] = keys[k]! % PLACES;
    places[k] = Math.floor(keys[k]! / PLACES);
  }
  return { byPlace, places };
}

function checkWhole(pack: Buffer, packHash: Buffer, count: number): void {
  if (
    pack.length < 32 ||
    pack.toString('latin1', 0, 4) !== 'PACK' ||
    pack.readUInt32BE(8) !== count ||
    !pack.subarray(pack.length - 20).equals(packHash) ||
    !createHash('sha1')
      .update(pack.subarray(0, pack.length - 20))
      .digest()
      .equals(packHash)
  )
    throw new Error('pack does not match its index or its checksum');
}

/** An entry's type and where its size ends and its deflated bytes start (gitformat-pack(5)). */
function entryHeader(
  pack: Buffer,
  start: number,
  end: number,
): { type: number; sizeEnd: number; dataStart: number } {
  let at = start;
  let byte = pack[at++]!;
  const type = (byte >> 4) & 7;
  while (byte & 0x80) byte = pack[at++]!;
  const sizeEnd = at;
  if (type === OFS_DELTA) {
    do byte = pack[at++]!;
    while (byte & 0x80);
  } else if (type === REF_DELTA) at += 20;
  else if (type < 1 || type > 4) throw new Error(`pack entry at ${start} has type ${type}`);
  if (at >= end) throw new Error(`pack entry at ${start} runs past the next one`);
  return { type, sizeEnd, dataStart: at };
}

/** How far back an ofs-delta's base starts: big-endian 7-bit groups, each further group +1. */
function ofsDistance(pack: Buffer, at: number): number {
  let place = at;
  let byte = pack[place++]!;
  let distance = byte & 0x7f;
  while (byte & 0x80) {
    byte = pack[place++]!;
    distance = (distance + 1) * 128 + (byte & 0x7f);
  }
  return distance;
}

/** The place (in pack order) of the entry starting at `offset`; an ofs-delta's base must be one. */
function placeOf(places: Float64Array, offset: number): number {
  let low = 0;
  let high = places.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = places[middle]!;
    if (at === offset) return middle;
    if (at < offset) low = middle + 1;
    else high = middle - 1;
  }
  throw new Error(`an ofs-delta's base at ${offset} is no entry of its pack`);
}
