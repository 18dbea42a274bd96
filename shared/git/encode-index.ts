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
  const fanout = Buffer.alloc(256 * 4);
  const below = new Uint32Array(257);
  for (let i = 0; i < count; i++) below[oids[i * 20]! + 1]!++;
  for (let i = 0; i < 256; i++) {
    below[i + 1]! += below[i]!;
    fanout.writeUInt32BE(below[i + 1]!, i * 4);
  }
  const crcColumn = Buffer.alloc(count * 4);
  const offsetColumn = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) {
    if (offsets[i]! >= 0x80000000) throw new RangeError('a pack over 2 GiB cannot be indexed here');
    crcColumn.writeUInt32BE(crcs[i]!, i * 4);
    offsetColumn.writeUInt32BE(offsets[i]!, i * 4);
  }
  const body = Buffer.concat([IDX_V2_MAGIC, fanout, oids, crcColumn, offsetColumn, packHash]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
