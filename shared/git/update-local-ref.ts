import { closeSync, fsync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { readLocalRef } from './read-local-ref';
import type { Clock } from './types';

const fsyncAsync = promisify(fsync);

export type RefUpdate = { kind: 'updated' } | { kind: 'stale'; current: string | null } | { kind: 'locked' };

/**
 * Compare-and-swap of a ref in a local repository under git's own lock protocol, so it is safe
 * beside a concurrent `git` (receive-pack, update-ref, pack-refs): create `<ref>.lock` exclusively
 * (EEXIST: someone holds it; back off until `lockTimeoutMs`), compare the current value with
 * `oldOid` (null: must not exist), write + fsync the lock, rename it onto the ref.
 * isomorphic-git's writeRef ignores that lock and must never touch a shared repository.
 * `durable: false` leaves out the fsync, for a ref that only remembers (an object cache's tip: lost
 * or empty after a power cut, it is read as no tip, and the remote is asked).
 * The steps on the lock are synchronous calls (a few µs each on a local folder, where each call
 * through the promise API is a thread-pool round trip of 40 µs or more); the wait for the lock
 * and the fsync are not.
 */
export async function updateLocalRef({
  gitdir,
  ref,
  oldOid,
  newOid,
  clock,
  lockTimeoutMs = 1000,
  signal,
  durable = true,
}: {
  gitdir: string;
  ref: string;
  oldOid: string | null;
  newOid: string;
  clock: Clock;
  lockTimeoutMs?: number;
  /** Stops waiting for the lock (and never takes it afterwards) once this fires. */
  signal?: AbortSignal;
  durable?: boolean;
}): Promise<RefUpdate> {
  const refPath = join(gitdir, ref);
  const lockPath = `${refPath}.lock`;
  mkdirSync(dirname(refPath), { recursive: true });
  const giveUpAt = clock.now() + lockTimeoutMs;
  let lock: number | undefined;
  for (let delayMs = 1; lock === undefined; delayMs = Math.min(delayMs * 2, 50)) {
    if (signal?.aborted) return { kind: 'locked' };
    try {
      lock = openSync(lockPath, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (clock.now() >= giveUpAt || signal?.aborted) return { kind: 'locked' };
      await new Promise<void>((resolve) => clock.setTimeout(resolve, delayMs));
    }
  }
  const descriptor = lock;
  // closed once: another thread of the process may be given the same number right after
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    closeSync(descriptor);
  };
  try {
    const current = await readLocalRef({ gitdir, ref });
    if (current !== oldOid) {
      release();
      unlinkSync(lockPath);
      return { kind: 'stale', current };
    }
    writeSync(descriptor, `${newOid}\n`);
    if (durable) await fsyncAsync(descriptor);
    release();
    renameSync(lockPath, refPath);
    return { kind: 'updated' };
  } catch (error) {
    try {
      release();
    } catch {}
    try {
      unlinkSync(lockPath);
    } catch {}
    throw error;
  }
}
