import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { keepLatest } from './keep-latest';
import { forgetKnownObjects } from './known-objects';
import { OidOffsetTable } from './oid-offset-table';

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
  keepLatest(kept, gitdir, cache, KEPT_FOLDERS);
  const packDir = join(gitdir, 'objects', 'pack');
  const present = new Set(listing(packDir).map((name) => `${gitdir}/objects/pack/${name}`));
  for (const held of heldMaps(cache)) {
    for (const key of held.keys()) {
      if (typeof key === 'string' && key.startsWith(`${gitdir}/objects/pack/`) && !present.has(key))
        held.delete(key);
    }
  }
  return cache;
}

/** A folder's names, none when it is gone; read in place (a few µs, where a thread-pool round trip is 40 or more). */
function listing(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
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

/**
 * Lets go of what `gitdir`'s kept cache took in while a publication read through it, keeping only
 * what spares the next one work: each pack's parsed index, as an {@link OidOffsetTable}. isomorphic-git
 * reads a whole pack into memory to read one object from it, and keeps it, with the objects it
 * inflated from it, for as long as the cache lives: a worker publishing 10,000 files to three
 * branches held their packs (about 27 MiB) and their indexes as strings (about 12 MiB of heap) at
 * every publication's peak. The next publication reading a pack reads it again (a file the page
 * cache holds, checked against its SHA-1 again as isomorphic-git checks a pack it loads).
 * Each index is replaced, not emptied: a read under way through the same cache (another
 * publication) keeps the one it holds, bytes and all.
 */
export async function leanReadCache(gitdir: string): Promise<void> {
  const cache = kept.get(gitdir);
  if (!cache) return;
  for (const held of heldMaps(cache)) {
    for (const [key, loading] of held) {
      const index: unknown = await Promise.resolve(loading).catch(() => undefined);
      if (typeof key !== 'string' || !isParsedIndex(index) || held.get(key) !== loading) continue;
      if (index.pack == null && index.offsets instanceof OidOffsetTable) continue;
      // a Map that cannot be made a table (a key that is no SHA-1) is parsed again if still needed
      const lean = leanIndexOf(index);
      if (lean) held.set(key, Promise.resolve(lean));
      else held.delete(key);
    }
  }
}

/** isomorphic-git's GitPackIndex, made as its own fromIdx makes one: nothing loaded, nothing cached. */
function leanIndexOf(index: ParsedIndex): unknown {
  try {
    const offsets =
      index.offsets instanceof OidOffsetTable ? index.offsets : OidOffsetTable.of(index.offsets);
    return new index.constructor({
      offsets,
      packfileSha: index.packfileSha,
      getExternalRefDelta: index.getExternalRefDelta,
      crcs: {},
    });
  } catch {
    return undefined;
  }
}

/**
 * A pack index as isomorphic-git 1.44 parses one (`GitPackIndex.fromIdx`): found by shape, as its
 * cache's Map is; anything else is left as it is.
 */
type ParsedIndex = {
  constructor: new (fields: object) => unknown;
  offsets: Map<string, number> | OidOffsetTable;
  packfileSha: string;
  getExternalRefDelta: unknown;
  pack?: unknown;
};

function isParsedIndex(value: unknown): value is ParsedIndex {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return (
    (fields.offsets instanceof Map || fields.offsets instanceof OidOffsetTable) &&
    typeof fields.packfileSha === 'string' &&
    typeof fields.constructor === 'function'
  );
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
