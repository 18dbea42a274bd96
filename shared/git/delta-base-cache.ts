/**
 * While a pack is read, the objects that deltas are applied to, kept by their offset in the pack
 * and bounded by the bytes they hold (the oldest dropped first): a base that fell out is inflated
 * again from the pack. Bytes, not a count, because one base may be a 40-byte commit or a 4 MiB folder.
 */
export type DeltaBaseCache = {
  get(offset: number): Buffer | undefined;
  set(offset: number, data: Buffer): void;
  /** The most bytes held at any time since the cache was made. */
  readonly peakBytes: number;
  readonly maxBytes: number;
};

/**
 * git keeps 96 MiB of delta bases (core.deltaBaseCacheLimit); a long-lived host worker must stay
 * within 256 MiB as a whole, and a pack's deltas mostly point at objects just before them (git's
 * delta window), so a smaller cache misses rarely.
 */
export const DELTA_BASE_CACHE_BYTES = 16 * 1024 * 1024;

/** What each kept base costs besides its bytes: its buffer object and its place in the map. */
const ENTRY_OVERHEAD_BYTES = 128;
const costOf = (data: Buffer) => data.buffer.byteLength + ENTRY_OVERHEAD_BYTES;
/** The most a buffer may hold besides an object's bytes to be kept as it is: an object's header. */
const HEADER_ROOM_BYTES = 32;

/**
 * The bytes to keep: a small object's bytes are a slice of node's shared 8 KiB pool (zlib's output
 * buffer), and keeping the slice would keep the whole slab, so they are copied into their own. A
 * buffer of the object's own behind its header (a resolved delta) is kept as it is.
 */
function ownBytes(data: Buffer): Buffer {
  if (data.buffer.byteLength - data.length <= HEADER_ROOM_BYTES) return data;
  const own = Buffer.allocUnsafeSlow(data.length);
  data.copy(own);
  return own;
}

export function createDeltaBaseCache({ maxBytes = DELTA_BASE_CACHE_BYTES } = {}): DeltaBaseCache {
  const held = new Map<number, Buffer>();
  let bytes = 0;
  let peak = 0;
  return {
    get(offset) {
      const data = held.get(offset);
      if (data) {
        // most recently used last: the oldest is dropped first
        held.delete(offset);
        held.set(offset, data);
      }
      return data;
    },
    set(offset, object) {
      if (object.length + ENTRY_OVERHEAD_BYTES > maxBytes || held.has(offset)) return;
      const data = ownBytes(object);
      const cost = costOf(data);
      for (const [oldest, old] of held) {
        if (bytes + cost <= maxBytes) break;
        held.delete(oldest);
        bytes -= costOf(old);
      }
      held.set(offset, data);
      bytes += cost;
      peak = Math.max(peak, bytes);
    },
    get peakBytes() {
      return peak;
    },
    maxBytes,
  };
}
