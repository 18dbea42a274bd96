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
  const fanout = Buffer.alloc(256 * 4);
  let k = 0;
  for (let i = 0; i < 256; i++) {
    while (k < sorted.length && Number.parseInt(sorted[k]!.oid.slice(0, 2), 16) <= i) k++;
    fanout.writeUInt32BE(k, i * 4);
  }
  const oids = Buffer.alloc(sorted.length * 20);
  const crcs = Buffer.alloc(sorted.length * 4);
  const offsets = Buffer.alloc(sorted.length * 4);
  sorted.forEach((e, i) => {
    if (e.offset >= 0x80000000) throw new RangeError('a pack over 2 GiB cannot be indexed here');
    oids.write(e.oid, i * 20, 'hex');
    crcs.writeUInt32BE(e.crc, i * 4);
    offsets.writeUInt32BE(e.offset, i * 4);
  });
  const body = Buffer.concat([IDX_V2_MAGIC, fanout, oids, crcs, offsets, packHash]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
