import { crc32 } from 'node:zlib';
import { encodeIndex } from './encode-index';
import { unpackObjects } from './unpack-objects';

/** Indexes a received pack natively (see unpackObjects): the v2 `.idx` bytes and the pack's checksum. */
export function indexPack({ pack }: { pack: Buffer }): { idx: Buffer; packSha: string } {
  const { objects, packHash } = unpackObjects({ pack });
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
