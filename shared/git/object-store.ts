import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { deflate } from 'node:zlib';
import { objectOidOf } from './blob-oid';
import { createObjectDeflater, type ObjectDeflater } from './object-deflater';

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
   * `takesDeltaOn` is kept instead of the object's bytes. `oid`: the SHA-1 the caller has just
   * computed of these bytes as `type` (a changed file, hashed to compare it with the tree), not
   * computed again.
   */
  add(type: GitObjectType, data: Buffer, delta?: Delta, oid?: string): string;
  /** Whether a delta on `base` would be kept: the base is in this store, in a short enough chain. */
  takesDeltaOn(base: string): boolean;
  /**
   * Every object in the order it was added, once its deflation has finished. Each is made as it is
   * iterated, its `deflated` a view of the slab holding it, or of the spill file's window: a small
   * object's (at most 32 KiB deflated) is valid until the next object is read. Copy what is kept.
   */
  objects(): AsyncIterable<[string, StoredObject]>;
  readonly size: number;
  /** Lets go of what the store holds outside the heap (its spill file); the store is unusable after. */
  close(): Promise<void>;
};

/** A chain of deltas is resolved one after another by every reader: keep chains short. */
const MAX_DELTA_DEPTH = 10;
/** From this size an object is deflated on libuv's thread pool, off the event loop. */
const DEFLATE_OFF_THREAD_BYTES = 64 * 1024;
/**
 * Deflated objects are copied side by side into slabs of this size. zlib hands back a slice of its
 * output buffer, which for a small object is carved from node's shared 8 KiB pool: keeping that
 * slice keeps the whole pool slab alive, with the file contents and zlib scratch around it, so
 * 10,000 changed files of 1 KiB held about 20 MiB for 3.5 MiB of deflated bytes until the push.
 */
export const DEFLATED_SLAB_BYTES = 256 * 1024;
/** A deflated object larger than this keeps its own buffer: it would waste most of a slab's tail. */
const OWN_BUFFER_BYTES = DEFLATED_SLAB_BYTES / 8;
const TYPES: readonly GitObjectType[] = ['commit', 'tree', 'blob'];

/**
 * Where each object's deflated bytes are, as columns of numbers rather than a record and a buffer
 * view per object: a first snapshot of 100,000 files held about 250 bytes of records a file beside
 * its 200 deflated bytes, as much again as the bytes themselves.
 */
function createPlaces() {
  let capacity = 1024;
  let types = new Uint8Array(capacity);
  let sizes = new Float64Array(capacity);
  let slabs = new Int32Array(capacity);
  let offsets = new Float64Array(capacity);
  let lengths = new Uint32Array(capacity);
  let count = 0;
  const grown = <T extends Uint8Array | Float64Array | Int32Array | Uint32Array>(column: T): T => {
    const larger = new (column.constructor as new (length: number) => T)(capacity);
    larger.set(column);
    return larger;
  };
  return {
    /** A new object's entry, its bytes not yet placed. */
    append(type: GitObjectType, size: number): number {
      if (count === capacity) {
        capacity *= 2;
        types = grown(types);
        sizes = grown(sizes);
        slabs = grown(slabs);
        offsets = grown(offsets);
        lengths = grown(lengths);
      }
      types[count] = TYPES.indexOf(type);
      sizes[count] = size;
      return count++;
    },
    place(entry: number, slab: number, offset: number, length: number): void {
      slabs[entry] = slab;
      offsets[entry] = offset;
      lengths[entry] = length;
    },
    read(entry: number) {
      return {
        type: TYPES[types[entry]!]!,
        size: sizes[entry]!,
        slab: slabs[entry]!,
        offset: offsets[entry]!,
        length: lengths[entry]!,
      };
    },
  };
}

/** Where a store keeps its deflated bytes: in memory, or spilled to a file. */
type DeflatedBytes = {
  /** Keeps the bytes; returns which slab holds them and where. */
  keep(bytes: Buffer): { slab: number; offset: number };
  /** Once everything kept so far can be read back. */
  settled(): Promise<void>;
  /**
   * A reader of bytes kept before `settled()` resolved, for one pass over them: each a view, which
   * for a small object may be of a window the reader reuses for the next.
   */
  reader(): (slab: number, offset: number, length: number) => Buffer | Promise<Buffer>;
  close(): Promise<void>;
};

/**
 * Deflated bytes packed densely into slabs allocated outside node's pool; a large one is a slab of
 * its own (zlib's own unpooled buffer already).
 */
function slabsInMemory(): DeflatedBytes {
  const slabs: Buffer[] = [];
  /** The slab small objects are copied into, and how much of it is used. */
  let open = -1;
  let used = DEFLATED_SLAB_BYTES;
  return {
    keep(bytes) {
      if (bytes.length > OWN_BUFFER_BYTES) return { slab: slabs.push(bytes) - 1, offset: 0 };
      if (used + bytes.length > DEFLATED_SLAB_BYTES) {
        open = slabs.push(Buffer.allocUnsafeSlow(DEFLATED_SLAB_BYTES)) - 1;
        used = 0;
      }
      const offset = used;
      bytes.copy(slabs[open]!, offset);
      used += bytes.length;
      return { slab: open, offset };
    },
    settled: async () => undefined,
    reader: () => (slab, offset, length) => slabs[slab]!.subarray(offset, offset + length),
    close: async () => {
      slabs.length = 0;
    },
  };
}

/**
 * Deflated bytes gathered in one slab at a time and written to a file of their own, read back in
 * windows of a slab as the pack is framed from them. The file is unlinked as soon as it is open:
 * only its handle reaches the bytes, and a process that dies mid-publication leaves no file behind.
 * What it holds is what the pack carries to the remote (Secrets are encrypted before they become a
 * write), deflated.
 */
async function spillFile(dir: string): Promise<DeflatedBytes> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `kubescribe-spill-${randomBytes(8).toString('hex')}.tmp`);
  const file: FileHandle = await open(path, 'wx+', 0o600);
  await unlink(path).catch(async (error: unknown) => {
    await file.close();
    throw error;
  });
  /** Writes under way: a slab is garbage once written. */
  const writing = new Set<Promise<unknown>>();
  let failure: unknown;
  /** The file's length once every write under way is done: where the next bytes go. */
  let end = 0;
  let slab: Buffer | null = null;
  let used = 0;
  let closed = false;
  const write = (bytes: Buffer) => {
    const at = end;
    end += bytes.length;
    const written = file.write(bytes, 0, bytes.length, at).then(({ bytesWritten }) => {
      // a positioned write of a file is whole or fails: a short one is a full disk
      if (bytesWritten !== bytes.length)
        throw new Error(`spill file: wrote ${bytesWritten} of ${bytes.length} bytes`);
    });
    const tracked = written
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => writing.delete(tracked));
    writing.add(tracked);
  };
  const flush = () => {
    if (slab && used > 0) write(slab.subarray(0, used));
    slab = null;
    used = 0;
  };
  /** Reads `length` bytes at `at` into `into`'s start. */
  const readAt = async (into: Buffer, length: number, at: number) => {
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await file.read(into, filled, length - filled, at + filled);
      if (bytesRead === 0) throw new Error(`spill file: ${end} bytes written, read ended at ${at + filled}`);
      filled += bytesRead;
    }
  };
  return {
    keep(bytes) {
      if (bytes.length > OWN_BUFFER_BYTES) {
        flush();
        const offset = end;
        write(bytes);
        return { slab: 0, offset };
      }
      if (slab === null || used + bytes.length > DEFLATED_SLAB_BYTES) {
        flush();
        slab = Buffer.allocUnsafeSlow(DEFLATED_SLAB_BYTES);
      }
      const offset = end + used;
      bytes.copy(slab, used);
      used += bytes.length;
      return { slab: 0, offset };
    },
    async settled() {
      flush();
      while (writing.size > 0) await Promise.all(writing);
      if (failure !== undefined) throw failure;
    },
    reader() {
      // one window a pass, read again where the next object starts beyond it: the pack is framed
      // twice from these bytes, and a fresh window each time was 2 × the deflated bytes of garbage
      const window = Buffer.allocUnsafeSlow(DEFLATED_SLAB_BYTES);
      let windowAt = 0;
      let windowLength = 0;
      return (_slab, offset, length) => {
        // a large object was written whole and is read whole, into a buffer of its own, which the
        // pack's framing sends as it is
        if (length > OWN_BUFFER_BYTES)
          return (async () => {
            const own = Buffer.allocUnsafeSlow(length);
            await readAt(own, length, offset);
            return own;
          })();
        if (offset >= windowAt && offset + length <= windowAt + windowLength)
          return window.subarray(offset - windowAt, offset - windowAt + length);
        return (async () => {
          windowLength = Math.min(DEFLATED_SLAB_BYTES, end - offset);
          windowAt = offset;
          await readAt(window, windowLength, offset);
          return window.subarray(0, length);
        })();
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      slab = null;
      while (writing.size > 0) await Promise.all(writing);
      await file.close();
    },
  };
}

/**
 * The objects a publication creates, kept deflated until they are packed and sent (deflated right
 * away: 10,000 changed files then weigh their compressed size, not twice their size), in memory.
 * A large object (a folder of thousands of files, rewritten by every commit touching it) is deflated
 * on the thread pool while the next commits are built, so the event loop keeps serving requests.
 */
export function createObjectStore(): ObjectStore {
  return storeOf(slabsInMemory());
}

/**
 * An object store whose deflated bytes are spilled to a file in `spillDir` (the publication's own
 * folder) instead of kept in memory: a cluster's first snapshot of 100,000 files held 22 MB of
 * them until the push. Close it, whatever the publication's outcome.
 */
export async function openSpillingObjectStore({ spillDir }: { spillDir: string }): Promise<ObjectStore> {
  return storeOf(await spillFile(spillDir));
}

function storeOf(bytes: DeflatedBytes): ObjectStore {
  /** Each object's entry in `places`, in the order added (the order a pack needs: bases first). */
  const entries = new Map<string, number>();
  const places = createPlaces();
  /** The objects kept as a delta: their base. */
  const deltaBases = new Map<number, string>();
  /** How many deltas deep each object kept as a delta is. */
  const depths = new Map<string, number>();
  const deflating = new Set<Promise<void>>();
  let closed = false;
  // one zlib context a store, not a thread: what zlib chooses depends on what it deflated before
  // (its window is reset, not cleared), so the same objects make the same pack in any store
  let deflater: ObjectDeflater | undefined;
  const takesDeltaOn = (base: string) => entries.has(base) && (depths.get(base) ?? 0) < MAX_DELTA_DEPTH;
  const keep = (entry: number, deflated: Buffer) => {
    const { slab, offset } = bytes.keep(deflated);
    places.place(entry, slab, offset, deflated.length);
  };
  return {
    add(type, data, delta, known) {
      if (closed) throw new Error('the object store is closed');
      const oid = known ?? objectOidOf(type, data);
      if (entries.has(oid)) return oid;
      const packed = delta && takesDeltaOn(delta.base) ? delta.instructions : data;
      const entry = places.append(type, packed.length);
      if (packed !== data) {
        deltaBases.set(entry, delta!.base);
        depths.set(oid, (depths.get(delta!.base) ?? 0) + 1);
      }
      entries.set(oid, entry);
      if (packed.length < DEFLATE_OFF_THREAD_BYTES) {
        deflater ??= createObjectDeflater();
        const deflated = deflater.deflate(packed);
        // the deflater's output is reused: a small object is copied into a slab, a larger one copied alone
        keep(entry, deflated.length > OWN_BUFFER_BYTES ? Buffer.from(deflated) : deflated);
      } else {
        const deflated = new Promise<void>((resolve, reject) =>
          deflate(packed, { level: 1 }, (error, deflated) => {
            if (error) return reject(error);
            // a store closed meanwhile (its publication failed) keeps nothing more
            if (!closed) keep(entry, deflated);
            resolve();
          }),
        ).finally(() => deflating.delete(deflated));
        deflating.add(deflated);
      }
      return oid;
    },
    takesDeltaOn,
    async *objects() {
      await Promise.all(deflating);
      await bytes.settled();
      const read = bytes.reader();
      for (const [oid, entry] of entries) {
        const { type, size, slab, offset, length } = places.read(entry);
        const deltaBase = deltaBases.get(entry);
        const view = read(slab, offset, length);
        const deflated = Buffer.isBuffer(view) ? view : await view;
        yield [oid, deltaBase === undefined ? { type, size, deflated } : { type, size, deflated, deltaBase }];
      }
    },
    get size() {
      return entries.size;
    },
    async close() {
      closed = true;
      deflater?.close();
      await Promise.allSettled(deflating);
      await bytes.close();
    },
  };
}
