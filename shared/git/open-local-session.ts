import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { boundStep } from './bound-step';
import { encodePack } from './encode-pack';
import { installPack } from './install-pack';
import { readLocalRef } from './read-local-ref';
import type { RemoteSession } from './remote-session';
import type { Clock, GitRemote } from './types';
import { updateLocalRef } from './update-local-ref';

async function hasAnyRef(gitdir: string): Promise<boolean> {
  const packed = await readFile(join(gitdir, 'packed-refs'), 'utf8').catch(() => '');
  if (packed.split('\n').some((line) => /^[0-9a-f]{40} refs\//.test(line))) return true;
  const entries = await readdir(join(gitdir, 'refs'), { recursive: true, withFileTypes: true }).catch(
    () => [],
  );
  return entries.some((e) => e.isFile() && !e.name.endsWith('.lock'));
}

/**
 * A bare repository on a local disk used as the remote itself: objects are read from it, our commits
 * go in as one pack (temporary file + rename), and the branch moves by a compare-and-swap under
 * git's own `<ref>.lock` protocol, safe beside a `git` process writing to the same repository.
 */
export function openLocalSession({
  remote,
  clock,
  callTimeoutMs,
  signal,
}: {
  remote: Extract<GitRemote, { kind: 'local' }>;
  clock: Clock;
  callTimeoutMs: number;
  signal?: AbortSignal;
}): RemoteSession {
  const gitdir = remote.path;
  const withBound = <T>(run: (s: AbortSignal) => Promise<T>) =>
    boundStep({ step: 'lock', ms: callTimeoutMs, clock, ...(signal ? { signal } : {}), run });
  return {
    gitdir: async () => gitdir,
    // the repository's own refs are read at no cost: no guessing needed
    knownTip: async () => null,
    async advertise() {
      const head = await readFile(join(gitdir, 'HEAD'), 'utf8').catch(() => null);
      if (head === null) throw new Error(`${gitdir} is not a git repository`);
      const heads = new Map<string, string>();
      const names = await readdir(join(gitdir, 'refs', 'heads'), {
        recursive: true,
        withFileTypes: true,
      }).catch(() => []);
      const packed = await readFile(join(gitdir, 'packed-refs'), 'utf8').catch(() => '');
      const candidates = new Set<string>();
      for (const e of names) {
        if (!e.isFile() || e.name.endsWith('.lock')) continue;
        const full = join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
        candidates.add(full.slice(join(gitdir, 'refs', 'heads').length + 1));
      }
      for (const line of packed.split('\n')) {
        const match = /^[0-9a-f]{40} refs\/heads\/(.+)$/.exec(line);
        if (match?.[1]) candidates.add(match[1]);
      }
      for (const name of candidates) {
        const oid = await readLocalRef({ gitdir, ref: `refs/heads/${name}` });
        if (oid) heads.set(name, oid);
      }
      const symbolic = /^ref: refs\/heads\/(.+)$/.exec(head.trim());
      return {
        heads,
        defaultBranch: symbolic?.[1] ?? null,
        empty: heads.size === 0 && !(await hasAnyRef(gitdir)),
      };
    },
    async obtain({ tip }) {
      return { gitdir, tip, cache: {} };
    },
    async obtainFiles({ tip }) {
      // the repository itself holds every object of its branches: a missing one is not ours to fetch
      throw new Error(`commit ${tip} of the local repository misses a file's blob`);
    },
    async push({ branch, oldOid, newOid, store }) {
      const { pack, idx, packSha } = await encodePack({ store });
      await installPack({ gitdir, pack, idx, packSha });
      // git itself waits 100 ms for a ref lock (core.filesRefLockTimeout); a little longer is kind to a busy repository
      const update = await withBound((s) =>
        updateLocalRef({
          gitdir,
          ref: `refs/heads/${branch}`,
          oldOid,
          newOid,
          clock,
          lockTimeoutMs: 1000,
          signal: s,
        }),
      );
      if (update.kind === 'stale')
        return { kind: 'moved', cause: 'the branch moved (compare-and-swap failed)' };
      if (update.kind === 'locked') return { kind: 'locked' };
      // an aggressive prune (`git gc --prune=now`) between install and ref update deletes the pack: put it back
      const still = await stat(join(gitdir, 'objects', 'pack', `pack-${packSha}.idx`)).then(
        () => true,
        () => false,
      );
      if (!still) await installPack({ gitdir, pack, idx, packSha });
      return { kind: 'ok' };
    },
  };
}
