import { createHash } from 'node:crypto';

const IDX_V2_MAGIC = Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]);
const FANOUT_END = IDX_V2_MAGIC.length + 256 * 4;

/** A pack's v2 index as columns: entry `i` is the object whose SHA-1 is `oids[20i, 20i+20)`. */
export type PackIndex = {
  count: number;
  oids: Buffer;
  crcs: Buffer;
  /** Each entry's offset in its pack (a 64-bit one resolved through the large-offset table). */
  offsets: Float64Array;
  /** The SHA-1 trailer of the pack this index describes. */
  packHash: Buffer;
};

/** Whether a pack or index file's last 20 bytes are the SHA-1 of the bytes before them, as git writes both. */
export function endsWithItsSha1(file: Buffer): boolean {
  return createHash('sha1')
    .update(file.subarray(0, file.length - 20))
    .digest()
    .equals(file.subarray(file.length - 20));
}

/**
 * Reads a v2 `.idx` (gitformat-pack(5), "Version 2 pack-*.idx files"): fan-out table, sorted
 * SHA-1s, CRC-32s, 31-bit offsets whose top bit points into the 64-bit table, the pack's checksum,
 * then the index's own. Throws on anything else (a v1 index, a short or altered file).
 */
export function readPackIndex(idx: Buffer): PackIndex {
  if (idx.length < FANOUT_END + 40 || !idx.subarray(0, IDX_V2_MAGIC.length).equals(IDX_V2_MAGIC))
    throw new Error('not a version 2 pack index');
  if (!endsWithItsSha1(idx)) throw new Error('pack index checksum does not match');
  const count = idx.readUInt32BE(FANOUT_END - 4);
  const oidsAt = FANOUT_END;
  const crcsAt = oidsAt + 20 * count;
  const offsetsAt = crcsAt + 4 * count;
  const largeAt = offsetsAt + 4 * count;
  if (largeAt + 40 > idx.length) throw new Error('pack index is shorter than its entries');
  const offsets = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const small = idx.readUInt32BE(offsetsAt + 4 * i);
    if (small < 0x80000000) {
      offsets[i] = small;
      continue;
    }
    const at = largeAt + 8 * (small & 0x7fffffff);
    if (at + 8 > idx.length - 40) throw new Error('pack index points past its large offsets');
    offsets[i] = Number(idx.readBigUInt64BE(at));
  }
  return {
    count,
    oids: idx.subarray(oidsAt, crcsAt),
    crcs: idx.subarray(crcsAt, offsetsAt),
    offsets,
    packHash: idx.subarray(idx.length - 40, idx.length - 20),
  };
}
