import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { forgetKnownObjects } from './known-objects';

/** Object folders whose read cache is kept: a worker publishing to more branches re-reads the rest. */
const KEPT_FOLDERS = 4;

const kept = new Map<string, object>();

/**
 * The isomorphic-git read cache of `gitdir`, kept between publications. A fresh cache parses every
 * pack index again on its first read: on a 100,000-file branch that is a 2.8 MB index, about 100 ms
 * of every publication (a steady stream publishes every window). Packs are named for their content
 * and each read is checked against its oid (`checked-objects.ts`), so a kept index is never stale;
 * a pack removed from the folder (merged by `compactObjectCache`, the cache started again, a `git gc`
 * of a local repository) is dropped from it here, so it holds only packs still on disk.
 */
export async function keptReadCache(gitdir: string): Promise<object> {
  const cache = kept.get(gitdir) ?? {};
  kept.delete(gitdir);
  kept.set(gitdir, cache);
  for (const oldest of kept.keys()) {
    if (kept.size <= KEPT_FOLDERS) break;
    kept.delete(oldest);
  }
  const packDir = join(gitdir, 'objects', 'pack');
  const present = new Set(
    (await readdir(packDir).catch(() => [] as string[])).map((name) => `${gitdir}/objects/pack/${name}`),
  );
  for (const held of heldMaps(cache)) {
    for (const key of held.keys()) {
      if (typeof key === 'string' && key.startsWith(`${gitdir}/objects/pack/`) && !present.has(key))
        held.delete(key);
    }
  }
  return cache;
}

/**
 * Forgets `gitdir`'s kept read cache and the objects it is known to hold
 * (`known-objects.ts`): a read through it failed, or the folder starts again. A pack
 * that failed isomorphic-git's check stays failed in the cache that read it, and a fetch of the
 * same pack again (the same name) would not replace it there.
 */
export function forgetReadCache(gitdir: string): void {
  kept.delete(gitdir);
  forgetKnownObjects(gitdir);
}

/** The pack files whose index `cache` holds parsed (what a test checks the pruning by). */
export function packsHeld(cache: object): string[] {
  return heldMaps(cache).flatMap((held) =>
    [...held.keys()].filter((key): key is string => typeof key === 'string'),
  );
}

/**
 * isomorphic-git keeps its parsed pack indexes in a Map under a private symbol of the cache object,
 * keyed by the index file's path (`readPackIndex`, isomorphic-git 1.44): found by shape, not by name.
 */
function heldMaps(cache: object): Map<unknown, unknown>[] {
  return Object.getOwnPropertySymbols(cache)
    .map((symbol) => (cache as Record<symbol, unknown>)[symbol])
    .filter((value): value is Map<unknown, unknown> => value instanceof Map);
}
