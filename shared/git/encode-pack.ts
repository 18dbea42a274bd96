import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeIndex } from './encode-index';
import type { ObjectStore } from './object-store';

const TYPE_CODE = { commit: 1, tree: 2, blob: 3 } as const;
const OFS_DELTA = 6;

/**
 * Writes an object's header in the pack into `into` at `at` (its type and size, and for an
 * ofs-delta how far back its base is) and returns where it ends: at most 10 + 9 bytes, written in
 * place, as a publication of 10,000 files frames its objects three times (to hash and index the
 * pack, to send it, to keep it in the cache).
 */
function writeHead(
  into: Buffer,
  at: number,
  type: keyof typeof TYPE_CODE,
  inflatedSize: number,
  baseDistanceBack: number | undefined,
): number {
  let end = at;
  let size = inflatedSize;
  let byte = ((baseDistanceBack === undefined ? TYPE_CODE[type] : OFS_DELTA) << 4) | (size & 0x0f);
  size = Math.floor(size / 16);
  while (size > 0) {
    into[end++] = byte | 0x80;
    byte = size & 0x7f;
    size = Math.floor(size / 128);
  }
  into[end++] = byte;
  if (baseDistanceBack !== undefined) for (const b of baseDistance(baseDistanceBack)) into[end++] = b;
  return end;
}

/** The most bytes an object's header takes: a size up to 2^53 in 8 bytes, a distance in 8 more. */
const MAX_HEAD_BYTES = 24;

/** How far back an ofs-delta's base starts, in git's offset encoding (big-endian, each more byte +1). */
export function baseDistance(distance: number): number[] {
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
 * A packfile as its pieces in order, framed again from the object store each time it is iterated:
 * each object's header beside its deflated bytes, copied into chunks of {@link PACK_CHUNK_BYTES}.
 * Never held whole: a first snapshot's pack is as large as all its deflated blobs, and a piece per
 * object (its header and a view of its bytes, 200,000 buffers for 100,000 files) weighed as much
 * again as those bytes. It is written to receive-pack and to the cache as it is framed.
 */
export type PackPieces = AsyncIterable<Buffer>;

/** The size of a framed piece: large enough for a few hundred writes a first snapshot, small enough to be garbage at once. */
export const PACK_CHUNK_BYTES = 64 * 1024;

/**
 * Encodes the store's objects as one packfile (v2) and its v2 index. The objects are already
 * deflated (node's native zlib), so this only frames them: the same bytes go to receive-pack and
 * into the local cache. An object kept as a delta becomes an ofs-delta on its base, which the store
 * holds earlier, so the pack has it earlier. The objects framed are those the store holds now: one
 * added later is not in this pack. `packBytes` is the pack's length, known before its bytes are
 * framed: a push declares it and sends the pieces as they come.
 */
export async function encodePack({
  store,
}: {
  store: ObjectStore;
}): Promise<{ pack: PackPieces; packBytes: number; idx: Buffer; packSha: string }> {
  const count = store.size;
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  const hash = createHash('sha1').update(header);
  const entries: { oid: string; offset: number; crc: number }[] = [];
  const offsets = new Map<string, number>();
  /** How far back each delta's base is, by the delta's place in the pack: the framing needs it again. */
  const distances = new Map<number, number>();
  let offset = header.length;
  const scratch = Buffer.allocUnsafe(MAX_HEAD_BYTES);
  let seen = 0;
  for await (const [oid, { type, size, deflated, deltaBase }] of store.objects()) {
    if (seen++ === count) break;
    const baseOffset = deltaBase === undefined ? undefined : offsets.get(deltaBase);
    if (deltaBase !== undefined && baseOffset === undefined)
      throw new Error(`delta base ${deltaBase} of ${oid} is not in the pack before it`);
    if (baseOffset !== undefined) distances.set(entries.length, offset - baseOffset);
    const head = scratch.subarray(
      0,
      writeHead(scratch, 0, type, size, baseOffset === undefined ? undefined : offset - baseOffset),
    );
    offsets.set(oid, offset);
    entries.push({ oid, offset, crc: crc32(deflated, crc32(head)) >>> 0 });
    hash.update(head).update(deflated);
    offset += head.length + deflated.length;
  }
  offsets.clear();
  const packHash = hash.digest();
  const idx = encodeIndex({ entries, packHash });
  const pack: PackPieces = {
    async *[Symbol.asyncIterator]() {
      let chunk = Buffer.allocUnsafeSlow(PACK_CHUNK_BYTES);
      let used = 0;
      const append = function* (bytes: Buffer): Generator<Buffer> {
        if (used + bytes.length > chunk.length) {
          if (used > 0) yield chunk.subarray(0, used);
          chunk = Buffer.allocUnsafeSlow(PACK_CHUNK_BYTES);
          used = 0;
        }
        // a deflated object larger than a chunk goes as it is, a view of the store's own bytes
        if (bytes.length > chunk.length) return yield bytes;
        bytes.copy(chunk, used);
        used += bytes.length;
      };
      yield* append(header);
      let place = 0;
      for await (const [, { type, size, deflated }] of store.objects()) {
        if (place === count) break;
        if (used + MAX_HEAD_BYTES > chunk.length) {
          yield chunk.subarray(0, used);
          chunk = Buffer.allocUnsafeSlow(PACK_CHUNK_BYTES);
          used = 0;
        }
        used = writeHead(chunk, used, type, size, distances.get(place++));
        yield* append(deflated);
      }
      yield* append(packHash);
      if (used > 0) yield chunk.subarray(0, used);
    },
  };
  return { pack, packBytes: offset + packHash.length, idx, packSha: packHash.toString('hex') };
}
