import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeIndex } from './encode-index';
import { baseDistance, type PackPieces } from './encode-pack';
import { readPackIndex } from './read-pack-index';

const OFS_DELTA = 6;
const REF_DELTA = 7;

/** A source pack with its index, both whole in memory. */
export type PackWithIndex = { pack: Buffer; idx: Buffer };

/** Where an entry's bytes go in the merged pack: a run of a source's bytes, or a rewritten header. */
type Piece = { bytes: Buffer } | { source: number; start: number; end: number };

/**
 * Merges packs into one by copying their entries as they are: no object is inflated, deflated or
 * hashed again. An entry's extent comes from its index (up to the next entry's offset), its SHA-1
 * and CRC-32 too. An object in several sources is kept once, at its first place. Deltas stay
 * deltas: an ofs-delta's distance to its base is rewritten for the base's new place (and its
 * CRC-32 computed again over the new header and the same deflated bytes, as git's index-pack
 * covers the whole entry); a ref-delta names its base by SHA-1 and is copied whole. Every
 * delta's base is earlier in the merged pack, so no chain can loop. Each source is checked
 * whole first (its SHA-1 trailer over its bytes, its index's checksum and count): a damaged
 * source throws, and nothing is merged.
 */
export function mergePacks(sources: readonly PackWithIndex[]): {
  pack: PackPieces;
  idx: Buffer;
  packSha: string;
} {
  const placed = new Map<string, number>();
  const entries: { oid: string; offset: number; crc: number }[] = [];
  const pieces: Piece[] = [];
  let offset = 12;
  const copy = (source: number, start: number, end: number) => {
    const last = pieces.at(-1);
    // consecutive entries of one source go as one run: a source merged whole is one write
    if (last && 'source' in last && last.source === source && last.end === start) last.end = end;
    else pieces.push({ source, start, end });
  };
  sources.forEach(({ pack, idx }, source) => {
    const index = readPackIndex(idx);
    checkWhole(pack, index.packHash, index.count);
    const byPlace = Uint32Array.from({ length: index.count }, (_, i) => i).sort(
      (a, b) => index.offsets[a]! - index.offsets[b]!,
    );
    const places = Float64Array.from(byPlace, (i) => index.offsets[i]!);
    const oidAt = (i: number) => index.oids.toString('hex', 20 * i, 20 * i + 20);
    for (let k = 0; k < byPlace.length; k++) {
      const i = byPlace[k]!;
      const oid = oidAt(i);
      if (placed.has(oid)) continue;
      const start = places[k]!;
      const end = k + 1 < places.length ? places[k + 1]! : pack.length - 20;
      const { type, sizeEnd, dataStart } = entryHeader(pack, start, end);
      if (type === OFS_DELTA) {
        const base = placed.get(oidAt(byPlace[placeOf(places, start - ofsDistance(pack, sizeEnd))]!));
        if (base === undefined) throw new Error(`delta ${oid} has its base after it`);
        const head = Buffer.concat([pack.subarray(start, sizeEnd), Buffer.from(baseDistance(offset - base))]);
        const data = pack.subarray(dataStart, end);
        pieces.push({ bytes: head });
        copy(source, dataStart, end);
        entries.push({ oid, offset, crc: crc32(data, crc32(head)) >>> 0 });
        placed.set(oid, offset);
        offset += head.length + data.length;
        continue;
      }
      if (type === REF_DELTA && !placed.has(pack.toString('hex', sizeEnd, sizeEnd + 20)))
        throw new Error(`delta ${oid} has its base after it or outside the merged packs`);
      copy(source, start, end);
      entries.push({ oid, offset, crc: index.crcs.readUInt32BE(4 * i) });
      placed.set(oid, offset);
      offset += end - start;
    }
  });
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
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
    idx: encodeIndex({ entries, packHash }),
    packSha: packHash.toString('hex'),
  };
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

/** The place (in offset order) of the entry starting at `offset`; an ofs-delta's base must be one. */
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
