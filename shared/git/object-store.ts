import { deflate, deflateSync, type ZlibOptions } from 'node:zlib';
import { objectOidOf } from './blob-oid';

export type GitObjectType = 'commit' | 'tree' | 'blob';
/**
 * An object as it goes into a pack: its type, and its zlib-deflated bytes with their inflated size.
 * With `deltaBase` those bytes are a git delta against that object (which is in the same store,
 * added earlier), not the object itself.
 */
export type StoredObject = { type: GitObjectType; size: number; deflated: Buffer; deltaBase?: string };
/** A version of an object as git delta instructions against an earlier object. */
export type Delta = { base: string; instructions: Buffer };
export type ObjectStore = {
  /**
   * Hashes the object and keeps it (once), deflated; returns its SHA-1. A `delta` on a base that
   * `takesDeltaOn` is kept instead of the object's bytes.
   */
  add(type: GitObjectType, data: Buffer, delta?: Delta): string;
  /** Whether a delta on `base` would be kept: the base is in this store, in a short enough chain. */
  takesDeltaOn(base: string): boolean;
  /** Every object, once its deflation has finished. */
  objects(): Promise<Iterable<[string, StoredObject]>>;
  readonly size: number;
};

/** A chain of deltas is resolved one after another by every reader: keep chains short. */
const MAX_DELTA_DEPTH = 10;
/** From this size an object is deflated on libuv's thread pool, off the event loop. */
const DEFLATE_OFF_THREAD_BYTES = 64 * 1024;
/**
 * Small deflated objects are copied side by side into slabs of this size. zlib hands back a slice
 * of its output buffer, which for a small object is carved from node's shared 8 KiB pool: keeping
 * that slice keeps the whole pool slab alive, with the file contents and zlib scratch around it, so
 * 10,000 changed files of 1 KiB held about 20 MiB for 3.5 MiB of deflated bytes until the push.
 */
export const DEFLATED_SLAB_BYTES = 256 * 1024;
/** A deflated object larger than this keeps its own buffer: it would waste most of a slab's tail. */
const OWN_BUFFER_BYTES = DEFLATED_SLAB_BYTES / 8;

/** Copies small buffers densely into slabs allocated outside node's pool. */
function createSlabs(): (bytes: Buffer) => Buffer {
  let slab = Buffer.allocUnsafeSlow(0);
  let used = 0;
  return (bytes) => {
    // a large output is zlib's own (unpooled) buffer already
    if (bytes.length > OWN_BUFFER_BYTES) return bytes;
    if (used + bytes.length > slab.length) {
      slab = Buffer.allocUnsafeSlow(DEFLATED_SLAB_BYTES);
      used = 0;
    }
    const copy = slab.subarray(used, used + bytes.length);
    bytes.copy(copy);
    used += bytes.length;
    return copy;
  };
}

/**
 * The objects a publication creates, kept deflated in memory until they are packed and sent
 * (deflated right away: 10,000 changed files then weigh their compressed size, not twice their size).
 * A large object (a folder of thousands of files, rewritten by every commit touching it) is deflated
 * on the thread pool while the next commits are built, so the event loop keeps serving requests.
 */
export function createObjectStore(): ObjectStore {
  const objects = new Map<string, StoredObject>();
  /** How many deltas deep each object kept as a delta is. */
  const depths = new Map<string, number>();
  const deflating: Promise<void>[] = [];
  const compact = createSlabs();
  const takesDeltaOn = (base: string) => objects.has(base) && (depths.get(base) ?? 0) < MAX_DELTA_DEPTH;
  return {
    add(type, data, delta) {
      const oid = objectOidOf(type, data);
      if (objects.has(oid)) return oid;
      const packed = delta && takesDeltaOn(delta.base) ? delta.instructions : data;
      const object: StoredObject = { type, size: packed.length, deflated: Buffer.alloc(0) };
      if (packed !== data) {
        object.deltaBase = delta!.base;
        depths.set(oid, (depths.get(delta!.base) ?? 0) + 1);
      }
      objects.set(oid, object);
      const options: ZlibOptions = {
        level: 1,
        // a small output chunk: with the default 16 KiB chunk each deflated object pins 16 KiB
        chunkSize: Math.max(64, Math.min(packed.length, 16_384)),
        // a window no larger than the object: setting up zlib's default 32 KiB window costs more than
        // deflating a small file
        windowBits: Math.max(9, Math.min(15, Math.ceil(Math.log2(packed.length + 1)))),
      };
      if (packed.length < DEFLATE_OFF_THREAD_BYTES) object.deflated = compact(deflateSync(packed, options));
      else
        deflating.push(
          new Promise<void>((resolve, reject) =>
            deflate(packed, options, (error, deflated) => {
              if (error) return reject(error);
              object.deflated = deflated;
              resolve();
            }),
          ),
        );
      return oid;
    },
    takesDeltaOn,
    async objects() {
      await Promise.all(deflating.splice(0));
      return objects.entries();
    },
    get size() {
      return objects.size;
    },
  };
}
