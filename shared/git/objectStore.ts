import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

export type GitObjectType = 'commit' | 'tree' | 'blob';
/** An object as it goes into a pack: its type, its inflated size, and its zlib-deflated bytes. */
export type StoredObject = { type: GitObjectType; size: number; deflated: Buffer };
export type ObjectStore = {
  /** Hashes the object and keeps it (once), deflated; returns its SHA-1. */
  add(type: GitObjectType, data: Buffer): string;
  objects(): Iterable<[string, StoredObject]>;
  readonly size: number;
};

/**
 * The objects a publication creates, kept deflated in memory until they are packed and sent
 * (deflated right away: 10,000 changed files then weigh their compressed size, not twice their size).
 */
export function createObjectStore(): ObjectStore {
  const objects = new Map<string, StoredObject>();
  return {
    add(type, data) {
      const oid = createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');
      if (!objects.has(oid)) {
        // a small output chunk: with the default 16 KiB chunk each deflated object pins 16 KiB
        const deflated = deflateSync(data, {
          level: 1,
          chunkSize: Math.max(64, Math.min(data.length, 16_384)),
        });
        objects.set(oid, { type, size: data.length, deflated });
      }
      return oid;
    },
    objects: () => objects.entries(),
    get size() {
      return objects.size;
    },
  };
}
