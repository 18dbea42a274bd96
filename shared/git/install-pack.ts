import { rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Puts a pack and its index into a repository's `objects/pack`, each written to a temporary name and
 * renamed, the index last (readers find packs through their index), so no reader ever sees a partial
 * file. Returns false when the pack was already there.
 */
export async function installPack({
  gitdir,
  pack,
  idx,
  packSha,
}: {
  gitdir: string;
  pack: Buffer;
  idx: Buffer;
  packSha: string;
}): Promise<boolean> {
  const dir = join(gitdir, 'objects', 'pack');
  const present = await stat(join(dir, `pack-${packSha}.idx`)).then(
    () => true,
    () => false,
  );
  if (present) return false;
  for (const [ext, bytes] of [
    ['pack', pack],
    ['idx', idx],
  ] as const) {
    const temporary = join(dir, `tmp_kubescribe_${packSha}_${process.pid}.${ext}`);
    await writeFile(temporary, bytes);
    await rename(temporary, join(dir, `pack-${packSha}.${ext}`));
  }
  return true;
}
