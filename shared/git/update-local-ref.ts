import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readLocalRef } from './read-local-ref';
import type { Clock } from './types';

export type RefUpdate = { kind: 'updated' } | { kind: 'stale'; current: string | null } | { kind: 'locked' };

/**
 * Compare-and-swap of a ref in a local repository under git's own lock protocol, so it is safe
 * beside a concurrent `git` (receive-pack, update-ref, pack-refs): create `<ref>.lock` exclusively
 * (EEXIST: someone holds it; back off until `lockTimeoutMs`), compare the current value with
 * `oldOid` (null: must not exist), write + fsync the lock, rename it onto the ref.
 * isomorphic-git's writeRef ignores that lock and must never touch a shared repository.
 * `durable: false` leaves out the fsync, for a ref that only remembers (an object cache's tip: lost
 * or empty after a power cut, it is read as no tip, and the remote is asked).
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
  await mkdir(dirname(refPath), { recursive: true });
  const giveUpAt = clock.now() + lockTimeoutMs;
  let lock: Awaited<ReturnType<typeof open>> | undefined;
  for (let delayMs = 1; !lock; delayMs = Math.min(delayMs * 2, 50)) {
    if (signal?.aborted) return { kind: 'locked' };
    try {
      lock = await open(lockPath, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (clock.now() >= giveUpAt || signal?.aborted) return { kind: 'locked' };
      await new Promise<void>((resolve) => clock.setTimeout(resolve, delayMs));
    }
  }
  try {
    const current = await readLocalRef({ gitdir, ref });
    if (current !== oldOid) {
      await lock.close();
      await unlink(lockPath);
      return { kind: 'stale', current };
    }
    await lock.writeFile(`${newOid}\n`);
    if (durable) await lock.sync();
    await lock.close();
    await rename(lockPath, refPath);
    return { kind: 'updated' };
  } catch (error) {
    await lock.close().catch(() => {});
    await unlink(lockPath).catch(() => {});
    throw error;
  }
}
