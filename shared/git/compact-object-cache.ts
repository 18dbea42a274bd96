import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { encodePack } from './encode-pack';
import { installPack } from './install-pack';
import { createObjectStore } from './object-store';
import { unpackObjects } from './unpack-objects';

/**
 * Merges the small packs of a cache into one once there are more than `maxPacks` of them:
 * each publication adds a small pack, and isomorphic-git looks an object up pack by pack, so the
 * cost of reading would otherwise grow with the number of publications. The merged pack is
 * installed before the old ones are removed, so a kill in between leaves duplicates, never a hole.
 * Returns how many packs were merged (0: nothing to do).
 */
export async function compactObjectCache({
  gitdir,
  maxPacks = 8,
  smallPackBytes = 1 << 20,
}: {
  gitdir: string;
  maxPacks?: number;
  smallPackBytes?: number;
}): Promise<number> {
  const dir = join(gitdir, 'objects', 'pack');
  const names = (await readdir(dir))
    .filter((n) => /^pack-[0-9a-f]{40}\.idx$/.test(n))
    .map((n) => n.slice(0, -4));
  const sized = await Promise.all(
    names.map(async (name) => ({ name, size: (await stat(join(dir, `${name}.pack`))).size })),
  );
  // only small packs (our blob-less ones, small fetches): re-reading a fetched base object by object
  // would cost more than the lookups it saves
  const merged = sized.filter((pack) => pack.size < smallPackBytes);
  if (merged.length <= maxPacks) return 0;
  const store = createObjectStore();
  for (const { name } of merged) {
    for (const { type, data } of unpackObjects({ pack: await readFile(join(dir, `${name}.pack`)) }).objects) {
      if (type === 'tag') return 0; // never fetched (tags: false); leave such a cache alone
      store.add(type, data);
    }
  }
  await installPack({ gitdir, ...(await encodePack({ store })) });
  for (const { name } of merged) {
    await rm(join(dir, `${name}.idx`), { force: true });
    await rm(join(dir, `${name}.pack`), { force: true });
  }
  return merged.length;
}
