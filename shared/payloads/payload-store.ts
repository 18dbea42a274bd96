import type { PayloadRef } from './payload-ref';

/**
 * Content-addressed storage for resource payloads, so branch state keeps only references. `put` is
 * idempotent (same bytes, same reference, stored once) and durable when it resolves; `get` returns
 * bytes only if they still hash to the reference.
 */
export interface PayloadStore {
  /** Stores the bytes (or UTF-8 text) and returns their reference. */
  put(payload: Uint8Array | string): Promise<PayloadRef>;
  /** The stored bytes; throws `PayloadNotFound`, `PayloadCorrupt` or `PayloadRefInvalid`. */
  get(ref: string): Promise<Uint8Array>;
  /** Whether a payload is stored under the reference; throws `PayloadRefInvalid` for a malformed one. */
  has(ref: string): Promise<boolean>;
}
