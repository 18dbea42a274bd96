import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeIndex } from './encodeIndex';
import type { GitObjectType, ObjectStore } from './objectStore';

const TYPE_CODE = { commit: 1, tree: 2, blob: 3 } as const;

function objectHeader(type: GitObjectType, inflatedSize: number): Buffer {
  let size = inflatedSize;
  const head: number[] = [];
  let byte = (TYPE_CODE[type] << 4) | (size & 0x0f);
  size = Math.floor(size / 16);
  while (size > 0) {
    head.push(byte | 0x80);
    byte = size & 0x7f;
    size = Math.floor(size / 128);
  }
  head.push(byte);
  return Buffer.from(head);
}

/**
 * Encodes the store's objects (all of them, or only the listed types) as one packfile (v2, no
 * deltas) and its v2 index. The objects are already deflated (node's native zlib), so this only
 * frames them: the same bytes go to receive-pack and, without the blobs, into the local cache.
 */
export function encodePack({ store, types }: { store: ObjectStore; types?: readonly GitObjectType[] }): {
  pack: Buffer;
  idx: Buffer;
  packSha: string;
} {
  const chosen = [...store.objects()].filter(([, object]) => !types || types.includes(object.type));
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(chosen.length, 8);
  const parts: Buffer[] = [header];
  const hash = createHash('sha1').update(header);
  const entries: { oid: string; offset: number; crc: number }[] = [];
  let offset = header.length;
  for (const [oid, { type, size, deflated }] of chosen) {
    const head = objectHeader(type, size);
    entries.push({ oid, offset, crc: crc32(deflated, crc32(head)) >>> 0 });
    parts.push(head, deflated);
    hash.update(head).update(deflated);
    offset += head.length + deflated.length;
  }
  const packHash = hash.digest();
  parts.push(packHash);
  const pack = Buffer.concat(parts, offset + 20);

  const idx = encodeIndex({ entries, packHash });
  return { pack, idx, packSha: packHash.toString('hex') };
}
