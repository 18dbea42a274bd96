import { crc32 } from 'node:zlib';
import type { DeltaBaseCache } from './delta-base-cache';
import { encodeIndex } from './encode-index';
import { readPack } from './unpack-objects';

/**
 * Indexes a received pack natively (see readPack): the v2 `.idx` bytes and the pack's checksum.
 * Only each object's SHA and place are kept; its bytes are dropped once hashed.
 */
export function indexPack({ pack, bases }: { pack: Buffer; bases?: DeltaBaseCache }): {
  idx: Buffer;
  packSha: string;
} {
  const entries: { oid: string; offset: number; crc: number }[] = [];
  const { packHash } = readPack({
    pack,
    visit: ({ oid, offset, end }) =>
      entries.push({ oid, offset, crc: crc32(pack.subarray(offset, end)) >>> 0 }),
    ...(bases ? { bases } : {}),
  });
  const idx = encodeIndex({ entries, packHash });
  return { idx, packSha: packHash.toString('hex') };
}
