import { statSync } from 'node:fs';
import { join } from 'node:path';
import { keepLatest } from './keep-latest';

/** How many packs are remembered: far more than the caches one worker keeps open hold. */
const WHOLE_REMEMBERED = 4096;

/**
 * The packs this process found whole or wrote whole itself, by path, with the identity of the pack
 * and index files then (inode, size, modification time). A warm publication opens its cache again
 * and would otherwise read and hash every index each time. A pack is installed under its name by a
 * rename and never written in place, so a file this process checked and whose identity is
 * unchanged is the file it checked; anything that rewrites, truncates or replaces it changes that
 * identity. A new process remembers nothing and checks every pack again: that is where a killed
 * publication's leftovers are met.
 */
const foundWhole = new Map<string, string>();

/**
 * The identity of a pack and its index as one comparable string, with the pack's size. Read in
 * place: a stat of a local file takes a few µs, where each through the promise API is a thread-pool
 * round trip of 40 µs or more, and a cache is opened with two per pack.
 */
export function packIdentity(packDir: string, name: string): { identity: string; packBytes: number } {
  const idx = statSync(join(packDir, `${name}.idx`), { bigint: true });
  const pack = statSync(join(packDir, `${name}.pack`), { bigint: true });
  return {
    identity: `${idx.ino}:${idx.size}:${idx.mtimeNs}/${pack.ino}:${pack.size}:${pack.mtimeNs}`,
    packBytes: Number(pack.size),
  };
}

/** Whether this process checked or wrote the pack whole with the files it has now. */
export const knownWhole = (packDir: string, name: string, identity: string): boolean =>
  foundWhole.get(join(packDir, `${name}.pack`)) === identity;

/** Remembers the pack, with the files it has now, as whole. */
export function rememberWhole(packDir: string, name: string, identity: string): void {
  keepLatest(foundWhole, join(packDir, `${name}.pack`), identity, WHOLE_REMEMBERED);
}
