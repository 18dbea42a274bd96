import { crc32 } from 'node:zlib';
import type { DeltaBaseCache } from './delta-base-cache';
import { encodeIndex } from './encode-index';
import { type PackObject, readPack } from './unpack-objects';

/**
 * Indexes a received pack natively (see readPack): the v2 `.idx` bytes and the pack's checksum.
 * Only each object's SHA and place are kept; its bytes are dropped once hashed.
 */
export function indexPack({
  pack,
  bases,
  visit,
}: {
  pack: Buffer;
  bases?: DeltaBaseCache;
  /** Sees each object with its bytes as it is indexed (they are not kept past the call). */
  visit?: (object: PackObject) => void;
}): {
  idx: Buffer;
  packSha: string;
} {
  const entries: { oid: string; offset: number; crc: number }[] = [];
  const { packHash } = readPack({
    pack,
    visit: (object) => {
      const { oid, offset, end } = object;
      entries.push({ oid, offset, crc: crc32(pack.subarray(offset, end)) >>> 0 });
      visit?.(object);
    },
    ...(bases ? { bases } : {}),
  });
  const idx = encodeIndex({ entries, packHash });
  return { idx, packSha: packHash.toString('hex') };
}
