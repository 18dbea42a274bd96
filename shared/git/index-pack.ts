import { crc32 } from 'node:zlib';
import type { DeltaBaseCache } from './delta-base-cache';
import { encodeIndex } from './encode-index';
import { type PackObject, readPack } from './unpack-objects';

/**
 * Indexes a received pack natively (see readPack): the v2 `.idx` bytes and the pack's checksum.
 * Only each object's SHA and place are kept; its bytes are dropped once hashed.
 */
export function indexPack({ pack, bases }: { pack: Buffer; bases?: DeltaBaseCache }): {
  idx: Buffer;
  packSha: string;
} {
  const objects: Omit<PackObject, 'data' | 'type'>[] = [];
  const { packHash } = readPack({
    pack,
    visit: ({ oid, offset, end }) => objects.push({ oid, offset, end }),
    ...(bases ? { bases } : {}),
  });
  const idx = encodeIndex({
    entries: objects.map((o) => ({
      oid: o.oid,
      offset: o.offset,
      crc: crc32(pack.subarray(o.offset, o.end)) >>> 0,
    })),
    packHash,
  });
  return { idx, packSha: packHash.toString('hex') };
}
