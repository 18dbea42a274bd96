import { createHash } from 'node:crypto';

const IDX_V2_MAGIC = Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]);

/** The v2 `.idx` of a pack: fan-out, sorted SHAs, CRC-32s and offsets of its objects, then checksums. */
export function encodeIndex({
  entries,
  packHash,
}: {
  entries: { oid: string; offset: number; crc: number }[];
  packHash: Buffer;
}): Buffer {
  const sorted = [...entries].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  // one decode of every SHA joined: a `write(hex)` per object costs more than the rest of the index
  const oids = Buffer.from(sorted.map((e) => e.oid).join(''), 'hex');
  if (oids.length !== sorted.length * 20) throw new Error('an object id is not 40 hex digits');
  const crcs = new Uint32Array(sorted.length);
  const offsets = new Float64Array(sorted.length);
  sorted.forEach((e, i) => {
    crcs[i] = e.crc;
    offsets[i] = e.offset;
  });
  return encodeSortedIndex({ oids, crcs, offsets, packHash });
}

/** The same from columns already in SHA-1 order: `oids` holds 20 bytes per object. */
export function encodeSortedIndex({
  oids,
  crcs,
  offsets,
  packHash,
}: {
  oids: Buffer;
  crcs: Uint32Array;
  offsets: Float64Array;
  packHash: Buffer;
}): Buffer {
  const count = crcs.length;
  // one buffer written in place: magic, fan-out, SHAs, CRC-32s, offsets, the pack's SHA, then the
  // index's own SHA over all of it (a 100,000-object index is 2.8 MB: no part of it is copied twice)
  const shaAt = IDX_V2_MAGIC.length + 256 * 4;
  const crcAt = shaAt + count * 20;
  const offsetAt = crcAt + count * 4;
  const packShaAt = offsetAt + count * 4;
  const idx = Buffer.allocUnsafe(packShaAt + 40);
  const view = new DataView(idx.buffer, idx.byteOffset, idx.length);
  IDX_V2_MAGIC.copy(idx, 0);
  const below = new Uint32Array(257);
  for (let i = 0; i < count; i++) below[oids[i * 20]! + 1]!++;
  for (let i = 0; i < 256; i++) {
    below[i + 1]! += below[i]!;
    view.setUint32(IDX_V2_MAGIC.length + i * 4, below[i + 1]!);
  }
  oids.copy(idx, shaAt, 0, count * 20);
  for (let i = 0; i < count; i++) {
    if (offsets[i]! >= 0x80000000) throw new RangeError('a pack over 2 GiB cannot be indexed here');
    view.setUint32(crcAt + i * 4, crcs[i]!);
    view.setUint32(offsetAt + i * 4, offsets[i]!);
  }
  packHash.copy(idx, packShaAt);
  createHash('sha1')
    .update(idx.subarray(0, packShaAt + 20))
    .digest()
    .copy(idx, packShaAt + 20);
  return idx;
}
