import { open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackPieces } from './encode-pack';
import { packIdentity, rememberWhole } from './whole-packs';

/** How many pieces go to the disk in one write: a pack of 100,000 small objects in a few hundred calls. */
const PIECES_PER_WRITE = 16;

/**
 * Puts a pack and its index into a repository's `objects/pack`, each written to a temporary name and
 * renamed, the index last (readers find packs through their index), so no reader ever sees a partial
 * file. Returns false when the pack was already there. A pack put in whole is remembered as whole
 * (`whole-packs.ts`), so opening the cache again does not read its index back to check it.
 */
export async function installPack({
  gitdir,
  pack,
  idx,
  packSha,
}: {
  gitdir: string;
  /** The pack's bytes, whole (a fetched pack) or in pieces (one this process encoded). */
  pack: Buffer | PackPieces;
  idx: Buffer;
  packSha: string;
}): Promise<boolean> {
  const dir = join(gitdir, 'objects', 'pack');
  const present = await stat(join(dir, `pack-${packSha}.idx`)).then(
    () => true,
    () => false,
  );
  if (present) return false;
  for (const [ext, pieces] of [
    ['pack', Buffer.isBuffer(pack) ? [pack] : pack],
    ['idx', [idx]],
  ] as const) {
    const temporary = join(dir, `tmp_kubescribe_${packSha}_${process.pid}.${ext}`);
    await writePieces(temporary, pieces);
    await rename(temporary, join(dir, `pack-${packSha}.${ext}`));
  }
  rememberWhole(dir, `pack-${packSha}`, packIdentity(dir, `pack-${packSha}`).identity);
  return true;
}

/**
 * Takes out a pack `installing` put in for a push that was not applied, once it is written (or has
 * failed): its index first, as `installPack` puts it in last. A pack that was already there
 * (`installing` resolved false) is someone else's and stays.
 */
export async function withdrawPack(
  gitdir: string,
  packSha: string,
  installing: Promise<boolean>,
): Promise<void> {
  if (!(await installing.catch(() => false))) return;
  const dir = join(gitdir, 'objects', 'pack');
  await rm(join(dir, `pack-${packSha}.idx`), { force: true });
  await rm(join(dir, `pack-${packSha}.pack`), { force: true });
}

/** Writes the pieces one after another as a new file, as they come, without joining them in memory. */
async function writePieces(path: string, pieces: PackPieces | readonly Buffer[]): Promise<void> {
  const file = await open(path, 'w');
  const write = async (batch: Buffer[]) => {
    const { bytesWritten } = await file.writev(batch);
    const size = batch.reduce((total, piece) => total + piece.length, 0);
    // libuv writes a file's vector whole or fails: a short write here is a full disk or a bug
    if (bytesWritten !== size) throw new Error(`${path}: wrote ${bytesWritten} of ${size} bytes`);
  };
  try {
    let batch: Buffer[] = [];
    for await (const piece of pieces) {
      batch.push(piece);
      if (batch.length < PIECES_PER_WRITE) continue;
      await write(batch);
      batch = [];
    }
    if (batch.length > 0) await write(batch);
  } finally {
    await file.close();
  }
}
