import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeIndex } from './encode-index';
import type { ObjectStore } from './object-store';

const TYPE_CODE = { commit: 1, tree: 2, blob: 3 } as const;
const OFS_DELTA = 6;

function objectHeader(typeCode: number, inflatedSize: number): number[] {
  let size = inflatedSize;
  const head: number[] = [];
  let byte = (typeCode << 4) | (size & 0x0f);
  size = Math.floor(size / 16);
  while (size > 0) {
    head.push(byte | 0x80);
    byte = size & 0x7f;
    size = Math.floor(size / 128);
  }
  head.push(byte);
  return head;
}

/** How far back an ofs-delta's base starts, in git's offset encoding (big-endian, each more byte +1). */
function baseDistance(distance: number): number[] {
  let rest = distance;
  const bytes = [rest & 0x7f];
  rest = Math.floor(rest / 128);
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest & 0x7f));
    rest = Math.floor(rest / 128);
  }
  return bytes;
}

/**
 * A packfile as its pieces in order: each object's header beside its deflated bytes as the store
 * holds them. Never joined into one buffer: a first snapshot's pack is as large as all its deflated
 * blobs, and a joined copy would double that at the publication's peak. It is written to
 * receive-pack and to the cache piece by piece.
 */
export type PackPieces = readonly Buffer[];

/**
 * Encodes the store's objects as one packfile (v2) and its v2 index. The objects are already
 * deflated (node's native zlib), so this only frames them: the same bytes go to receive-pack and
 * into the local cache. An object kept as a
 * delta becomes an ofs-delta on its base, which the store holds earlier, so the pack has it earlier.
 */
export async function encodePack({
  store,
}: {
  store: ObjectStore;
}): Promise<{ pack: PackPieces; idx: Buffer; packSha: string }> {
  const chosen = [...(await store.objects())];
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(chosen.length, 8);
  const parts: Buffer[] = [header];
  const hash = createHash('sha1').update(header);
  const entries: { oid: string; offset: number; crc: number }[] = [];
  const offsets = new Map<string, number>();
  let offset = header.length;
  for (const [oid, { type, size, deflated, deltaBase }] of chosen) {
    const baseOffset = deltaBase === undefined ? undefined : offsets.get(deltaBase);
    if (deltaBase !== undefined && baseOffset === undefined)
      throw new Error(`delta base ${deltaBase} of ${oid} is not in the pack before it`);
    const head = Buffer.from(
      baseOffset === undefined
        ? objectHeader(TYPE_CODE[type], size)
        : [...objectHeader(OFS_DELTA, size), ...baseDistance(offset - baseOffset)],
    );
    offsets.set(oid, offset);
    entries.push({ oid, offset, crc: crc32(deflated, crc32(head)) >>> 0 });
    parts.push(head, deflated);
    hash.update(head).update(deflated);
    offset += head.length + deflated.length;
  }
  const packHash = hash.digest();
  parts.push(packHash);
  const idx = encodeIndex({ entries, packHash });
  return { pack: parts, idx, packSha: packHash.toString('hex') };
}
