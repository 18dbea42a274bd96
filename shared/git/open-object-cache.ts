import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdir, open, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { compactionSettled } from './compact-object-cache';
import { keepLatest } from './keep-latest';
import { forgetReadCache } from './kept-read-cache';
import { endsWithItsSha1 } from './read-pack-index';

const MAX_PACKS = 64;

/** How many packs `foundWhole` remembers: far more than the caches one worker keeps open hold. */
const WHOLE_REMEMBERED = 4096;

/**
 * The packs this process found whole, by path, with the identity of the pack and index files it
 * read then (inode, size, modification time). A warm publication opens its cache again and would
 * otherwise read and hash every index each time. A pack is installed under its name by a rename
 * and never written in place, so a file this process checked and whose identity is unchanged is
 * the file it checked; anything that rewrites, truncates or replaces it changes that identity. A
 * new process remembers nothing and checks every pack again: that is where a killed publication's
 * leftovers are met.
 */
const foundWhole = new Map<string, string>();

/** Inode, size and modification time (ns) of a file, as one comparable string. */
async function identityOf(path: string): Promise<{ identity: string; size: number }> {
  const { ino, size, mtimeNs } = await stat(path, { bigint: true });
  return { identity: `${ino}:${size}:${mtimeNs}`, size: Number(size) };
}

/** Whether the index ends with its own SHA-1 and names the trailer the pack ends with. */
async function readsWhole(idxPath: string, packPath: string, size: number): Promise<boolean> {
  const idx = await readFile(idxPath);
  if (idx.length < 1072) return false;
  if (!endsWithItsSha1(idx)) return false;
  if (size < 32) return false;
  const handle = await open(packPath, 'r');
  try {
    const trailer = Buffer.alloc(20);
    await handle.read(trailer, 0, 20, size - 20);
    return trailer.equals(idx.subarray(idx.length - 40, idx.length - 20));
  } finally {
    await handle.close();
  }
}

async function packIsWhole(dir: string, name: string): Promise<boolean> {
  const idxPath = join(dir, `${name}.idx`);
  const packPath = join(dir, `${name}.pack`);
  try {
    const [idxFile, packFile] = await Promise.all([identityOf(idxPath), identityOf(packPath)]);
    const seen = `${idxFile.identity}/${packFile.identity}`;
    if (foundWhole.get(packPath) === seen) return true;
    const whole = await readsWhole(idxPath, packPath, packFile.size);
    if (!whole) return false;
    keepLatest(foundWhole, packPath, seen, WHOLE_REMEMBERED);
    return true;
  } catch {
    return false;
  }
}

/** Where the object cache of the remote branch named by `key` lives (see openObjectCache). */
export const objectCacheFolder = ({ cacheDir, key }: { cacheDir: string; key: string }): string =>
  join(cacheDir, `${createHash('sha1').update(key).digest('hex').slice(0, 20)}.git`);

/** Whether the object cache of `key` was ever made (a fresh worker, or a new branch, has none). */
export const objectCacheExists = (args: { cacheDir: string; key: string }): Promise<boolean> =>
  stat(join(objectCacheFolder(args), 'HEAD')).then(
    () => true,
    () => false,
  );

/**
 * Opens (creating it if needed) the bare object cache of one remote branch under `cacheDir`. What a
 * killed publication may leave half-written is never reused: temporary files are deleted, and a pack
 * without a whole index or with a truncated body makes the cache start again, cold.
 * `fresh` wipes the cache first. A merge of its packs still running (`compactAfterPublication`) ends first.
 * `key` names the remote branch; the URL is kept out of the folder name.
 * Returns the cache's gitdir.
 */
export async function openObjectCache({
  cacheDir,
  key,
  url,
  fresh = false,
}: {
  cacheDir: string;
  key: string;
  /** The remote the cache fetches from (isomorphic-git's fetch wants it configured as origin). */
  url: string;
  fresh?: boolean;
}): Promise<string> {
  const gitdir = objectCacheFolder({ cacheDir, key });
  // a merge still running from the last publication writes and removes packs here
  await compactionSettled(gitdir);
  if (fresh) {
    forgetReadCache(gitdir);
    await rm(gitdir, { recursive: true, force: true });
  }
  const packDir = join(gitdir, 'objects', 'pack');
  if (!(await objectCacheExists({ cacheDir, key }))) {
    await git.init({ fs, gitdir, bare: true, defaultBranch: 'main' });
    await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
    await mkdir(packDir, { recursive: true });
    return gitdir;
  }
  await mkdir(packDir, { recursive: true });
  const names = await readdir(packDir);
  for (const name of names) {
    if (name.startsWith('tmp_')) await unlink(join(packDir, name)).catch(() => {});
  }
  const packs = new Set(
    names.filter((n) => /^pack-[0-9a-f]{40}\.(pack|idx)$/.test(n)).map((n) => n.replace(/\.(pack|idx)$/, '')),
  );
  // every publication adds a small pack, and isomorphic-git searches them one by one: past a bound,
  // one cold fetch is cheaper than the search
  if (packs.size > MAX_PACKS) return openObjectCache({ cacheDir, key, url, fresh: true });
  // refs and the shallow list may point into a broken pack: start the whole cache again, cold
  const whole = await Promise.all([...packs].map((name) => packIsWhole(packDir, name)));
  if (whole.includes(false)) return openObjectCache({ cacheDir, key, url, fresh: true });
  return gitdir;
}
