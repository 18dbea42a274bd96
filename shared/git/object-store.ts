import { deflate } from 'node:zlib';
import { objectOidOf } from './blob-oid';
import { deflateObject } from './object-deflater';

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
  /**
   * Every object in the order it was added, once its deflation has finished. Each is made as it is
   * iterated (its `deflated` a view of the slab holding it): keep only what is needed.
   */
  objects(): Promise<Iterable<[string, StoredObject]>>;
  readonly size: number;
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
  let offsets = new Uint32Array(capacity);
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

/**
 * Deflated bytes packed densely into slabs allocated outside node's pool; a large one is a slab of
 * its own (zlib's own unpooled buffer already).
 */
function createSlabs() {
  const slabs: Buffer[] = [];
  /** The slab small objects are copied into, and how much of it is used. */
  let open = -1;
  let used = DEFLATED_SLAB_BYTES;
  return {
    /** Keeps the bytes; returns which slab holds them and where. */
    keep(bytes: Buffer): { slab: number; offset: number } {
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
    view(slab: number, offset: number, length: number): Buffer {
      return slabs[slab]!.subarray(offset, offset + length);
    },
  };
}

/**
 * The objects a publication creates, kept deflated in memory until they are packed and sent
 * (deflated right away: 10,000 changed files then weigh their compressed size, not twice their size).
 * A large object (a folder of thousands of files, rewritten by every commit touching it) is deflated
 * on the thread pool while the next commits are built, so the event loop keeps serving requests.
 */
export function createObjectStore(): ObjectStore {
  /** Each object's entry in `places`, in the order added (the order a pack needs: bases first). */
  const entries = new Map<string, number>();
  const places = createPlaces();
  const slabs = createSlabs();
  /** The objects kept as a delta: their base. */
  const deltaBases = new Map<number, string>();
  /** How many deltas deep each object kept as a delta is. */
  const depths = new Map<string, number>();
  const deflating: Promise<void>[] = [];
  const takesDeltaOn = (base: string) => entries.has(base) && (depths.get(base) ?? 0) < MAX_DELTA_DEPTH;
  const keep = (entry: number, deflated: Buffer) => {
    const { slab, offset } = slabs.keep(deflated);
    places.place(entry, slab, offset, deflated.length);
  };
  return {
    add(type, data, delta) {
      const oid = objectOidOf(type, data);
      if (entries.has(oid)) return oid;
      const packed = delta && takesDeltaOn(delta.base) ? delta.instructions : data;
      const entry = places.append(type, packed.length);
      if (packed !== data) {
        deltaBases.set(entry, delta!.base);
        depths.set(oid, (depths.get(delta!.base) ?? 0) + 1);
      }
      entries.set(oid, entry);
      if (packed.length < DEFLATE_OFF_THREAD_BYTES) {
        const deflated = deflateObject(packed);
        // the deflater's output is reused: a small object is copied into a slab, a larger one copied alone
        keep(entry, deflated.length > OWN_BUFFER_BYTES ? Buffer.from(deflated) : deflated);
      } else
        deflating.push(
          new Promise<void>((resolve, reject) =>
            deflate(packed, { level: 1 }, (error, deflated) => {
              if (error) return reject(error);
              keep(entry, deflated);
              resolve();
            }),
          ),
        );
      return oid;
    },
    takesDeltaOn,
    async objects() {
      await Promise.all(deflating.splice(0));
      return (function* (): Iterable<[string, StoredObject]> {
        for (const [oid, entry] of entries) {
          const { type, size, slab, offset, length } = places.read(entry);
          const deltaBase = deltaBases.get(entry);
          const deflated = slabs.view(slab, offset, length);
          yield [
            oid,
            deltaBase === undefined ? { type, size, deflated } : { type, size, deflated, deltaBase },
          ];
        }
      })();
    },
    get size() {
      return entries.size;
    },
  };
}
