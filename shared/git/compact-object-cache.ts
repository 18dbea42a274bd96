import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { installPack } from './install-pack';
import { mergePacks } from './merge-packs';

/**
 * Which packs to merge so that, by size, each pack left is at least `factor` times the next
 * smaller one: git's `repack --geometric` (split_pack_geometry in git's repack, by bytes here, as
 * a merge costs a copy of its bytes). From the largest down, the packs already in progression
 * stay; the smaller ones are merged, with any larger pack the merged one would come within
 * `factor` of. Then a cache of total size T holds at most log2(T / smallest pack) + 1 packs, and
 * each byte is copied about once per doubling of the cache, however long the stream.
 */
export function packsToMerge<T extends { size: number }>(packs: readonly T[], factor = 2): T[] {
  const sorted = [...packs].sort((a, b) => a.size - b.size);
  let top = sorted.length - 1;
  while (top > 0 && sorted[top]!.size >= factor * sorted[top - 1]!.size) top--;
  if (top === 0) return [];
  let split = top + 1;
  let merged = sorted.slice(0, split).reduce((total, pack) => total + pack.size, 0);
  while (split < sorted.length && sorted[split]!.size < factor * merged) merged += sorted[split++]!.size;
  return sorted.slice(0, split);
}

/**
 * Keeps a cache's packs few: each publication adds a small pack, and isomorphic-git looks an
 * object up pack by pack (and the cache starts again, cold, past 64 packs: open-object-cache.ts).
 * Past `maxPacks`, the packs `packsToMerge` picks are copied into one (`mergePacks`: nothing inflated, deflated or
 * hashed per object), which is installed before the old ones are removed, so a kill in between
 * leaves duplicates, never a hole; the next merge drops the duplicates. A source that does not
 * read back whole leaves the cache as it is (the tip check finds a damaged pack and starts the
 * cache again). Returns how many packs were merged (0: nothing to do).
 */
export async function compactObjectCache({
  gitdir,
  maxPacks = 8,
}: {
  gitdir: string;
  maxPacks?: number;
}): Promise<number> {
  const dir = join(gitdir, 'objects', 'pack');
  const names = (await readdir(dir))
    .filter((n) => /^pack-[0-9a-f]{40}\.idx$/.test(n))
    .map((n) => n.slice(0, -4));
  // a merge makes a new pack whose index the next publication parses again: wait for a few (and
  // until then, every publication's call here costs one listing, no look at each pack)
  if (names.length <= maxPacks) return 0;
  const sized = await Promise.all(
    names.map(async (name) => ({ name, size: (await stat(join(dir, `${name}.pack`))).size })),
  );
  const merged = packsToMerge(sized);
  if (merged.length === 0) return 0;
  const sources = await Promise.all(
    merged.map(async ({ name }) => ({
      pack: await readFile(join(dir, `${name}.pack`)),
      idx: await readFile(join(dir, `${name}.idx`)),
    })),
  );
  let pack: ReturnType<typeof mergePacks>;
  try {
    pack = mergePacks(sources);
  } catch {
    return 0;
  }
  await installPack({ gitdir, ...pack });
  for (const { name } of merged) {
    if (`pack-${pack.packSha}` === name) continue;
    await rm(join(dir, `${name}.idx`), { force: true });
    await rm(join(dir, `${name}.pack`), { force: true });
  }
  return merged.length;
}

/** The merge each cache has running after a publication returned, by gitdir. */
const running = new Map<string, Promise<void>>();

/**
 * Runs `compactObjectCache` after the publication that called it has returned, as git runs its
 * `gc --auto` detached after a push: a merge copies packs (about 90 ms of a 75 ms publication of
 * 1,000 files, every few publications), which no one waits for the push to be acknowledged. The next
 * opening of the cache waits for it (`compactionSettled`), so nothing reads a pack it is removing.
 * A merge that fails leaves the cache as it was, which is only a cache; a kill in the middle leaves
 * what a kill in `compactObjectCache` leaves.
 */
export function compactAfterPublication(gitdir: string): void {
  const merge = (running.get(gitdir) ?? Promise.resolve())
    .then(() => compactObjectCache({ gitdir }))
    .then(
      () => {},
      () => {},
    )
    .finally(() => {
      if (running.get(gitdir) === merge) running.delete(gitdir);
    });
  running.set(gitdir, merge);
}

/** Resolves once no merge started by `compactAfterPublication` is running on the cache. */
export function compactionSettled(gitdir: string): Promise<void> {
  return running.get(gitdir) ?? Promise.resolve();
}
