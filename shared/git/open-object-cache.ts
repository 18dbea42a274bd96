import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { existsSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { compactionSettled } from './compact-object-cache';
import { forgetReadCache } from './kept-read-cache';
import { endsWithItsSha1 } from './read-pack-index';
import { knownWhole, packIdentity, rememberWhole } from './whole-packs';

const MAX_PACKS = 64;

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
  try {
    const { identity, packBytes } = packIdentity(dir, name);
    if (knownWhole(dir, name, identity)) return true;
    const whole = await readsWhole(join(dir, `${name}.idx`), join(dir, `${name}.pack`), packBytes);
    if (whole) rememberWhole(dir, name, identity);
    return whole;
  } catch {
    return false;
  }
}

/** Where the object cache of the remote branch named by `key` lives (see openObjectCache). */
export const objectCacheFolder = ({ cacheDir, key }: { cacheDir: string; key: string }): string =>
  join(cacheDir, `${createHash('sha1').update(key).digest('hex').slice(0, 20)}.git`);

/** Whether the object cache of `key` was ever made (a fresh worker, or a new branch, has none). */
export const objectCacheExists = (args: { cacheDir: string; key: string }): boolean =>
  existsSync(join(objectCacheFolder(args), 'HEAD'));

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
  if (!objectCacheExists({ cacheDir, key })) {
    await git.init({ fs, gitdir, bare: true, defaultBranch: 'main' });
    await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
    await mkdir(packDir, { recursive: true });
    return gitdir;
  }
  // a warm publication opens its cache each time: its listing and the packs' identities are read
  // in place (packIdentity), not in a thread-pool round trip per file
  mkdirSync(packDir, { recursive: true });
  const names = readdirSync(packDir);
  for (const name of names) {
    if (!name.startsWith('tmp_')) continue;
    try {
      unlinkSync(join(packDir, name));
    } catch {}
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
