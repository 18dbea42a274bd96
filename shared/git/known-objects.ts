import * as fs from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { FsClient } from 'isomorphic-git';
import { objectHeader } from './blob-oid';
import { keepLatest } from './keep-latest';
import type { PackObject } from './unpack-objects';

/** What the commits and folders kept from one fetch may hold, per object cache: the rest is read from its pack. */
export const FETCHED_OBJECTS_MAX_BYTES = 4 * 1024 * 1024;
/** Object caches whose objects are kept: as many as the read caches kept (`kept-read-cache.ts`). */
const KEPT_CACHES = 4;

/**
 * By object cache (its gitdir), objects it is known to hold, each as its header and bytes by SHA:
 * the commits and folders of its last fetch, and the last commit pushed from it.
 */
type Known = { fetched: Map<string, Buffer>; pushed?: { oid: string; framed: Buffer }; fs: FsClient };
const kept = new Map<string, Known>();

const framedOf = (type: PackObject['type'], data: Buffer): Buffer => {
  const header = objectHeader(type, data.length);
  const framed = Buffer.allocUnsafeSlow(header.length + data.length);
  framed.write(header, 0, 'latin1');
  data.copy(framed, header.length);
  return framed;
};

function known(gitdir: string): Known {
  const entry = kept.get(gitdir) ?? { fetched: new Map(), fs: servingFs(gitdir) };
  keepLatest(kept, gitdir, entry, KEPT_CACHES);
  return entry;
}

/**
 * Keeps the commits and folders (trees) of a pack fetched into `gitdir`, whose bytes were hashed to
 * their SHAs while it was indexed, up to `FETCHED_OBJECTS_MAX_BYTES` in the pack's order (a server
 * sends the tip's commit and folders first). The publication that fetched reads the tip and the
 * folders on its paths next, and the one after reads the tip it pushed: isomorphic-git would find
 * each in a pack, and the first read of a pack parses its whole index and reads and hashes the whole
 * pack (for a 10,000-file branch about 25 ms of a cold start, for a handful of objects). Returns a
 * visitor for `indexPack`, and `keep` to call once the pack is installed: what it saw then replaces
 * what an earlier fetch left.
 */
export function keepFetchedObjects(gitdir: string): {
  visit: (object: PackObject) => void;
  keep: () => void;
} {
  const fetched = new Map<string, Buffer>();
  let bytes = 0;
  return {
    visit({ oid, type, data }) {
      if (type !== 'commit' && type !== 'tree') return;
      if (bytes + data.length + 32 > FETCHED_OBJECTS_MAX_BYTES) return;
      const framed = framedOf(type, data);
      fetched.set(oid, framed);
      bytes += framed.length;
    },
    keep() {
      known(gitdir).fetched = fetched;
    },
  };
}

/** Keeps the commit just pushed from `gitdir` (its pack installed there): the next publication reads it first. */
export function keepPushedCommit(gitdir: string, oid: string, bytes: Buffer): void {
  known(gitdir).pushed = { oid, framed: framedOf('commit', bytes) };
}

/**
 * Whether `gitdir` is known to hold `oid` here, in memory: isomorphic-git then reads it where it
 * reads a loose object, and checks it against its id itself (`_readObject`), as it checks none of
 * a pack's objects.
 */
export function isKnownObject(gitdir: string, oid: string): boolean {
  const entry = kept.get(gitdir);
  return entry !== undefined && (entry.pushed?.oid === oid || entry.fetched.has(oid));
}

/** Forgets what `gitdir` is known to hold: its folder starts again, or a read through it failed. */
export function forgetKnownObjects(gitdir: string): void {
  kept.delete(gitdir);
}

/** How many objects `gitdir` is known to hold (what a test checks the keeping by). */
export function knownObjectCount(gitdir: string): number {
  const entry = kept.get(gitdir);
  return (entry?.fetched.size ?? 0) + (entry?.pushed ? 1 : 0);
}

/**
 * The file system isomorphic-git reads the object cache `gitdir` through: node's, except that an
 * object it is known to hold is found where isomorphic-git looks for a loose object first
 * (`objects/xx/yyyy`, deflated: `readObjectLoose`). isomorphic-git then inflates it, checks it
 * against its SHA and parses it with its own rules, as it would a loose object on disk.
 */
export function readingFs(gitdir: string): FsClient {
  return kept.get(gitdir)?.fs ?? probedFs;
}

function servingFs(gitdir: string): FsClient {
  const looseDir = `${join(gitdir, 'objects')}/`;
  const objectAt = (path: string): Buffer | undefined => {
    if (!path.startsWith(looseDir) || path.length !== looseDir.length + 41) return undefined;
    const oid = path.slice(looseDir.length, looseDir.length + 2) + path.slice(looseDir.length + 3);
    const entry = kept.get(gitdir);
    return entry?.pushed?.oid === oid ? entry.pushed.framed : entry?.fetched.get(oid);
  };
  const readFile = (async (
    path: Parameters<typeof fs.promises.readFile>[0],
    options?: Parameters<typeof fs.promises.readFile>[1],
  ) => {
    const framed = typeof path === 'string' ? objectAt(path) : undefined;
    if (framed) return deflateSync(framed, { level: 1 });
    return fs.promises.readFile(path, options);
  }) as typeof fs.promises.readFile;
  return promiseFs(readFile);
}

/**
 * isomorphic-git asks the file system it is given whether it returns promises by calling
 * `readFile()` without a path, twice for each of its calls (`isPromiseFs`, from `bindFs`); node's
 * answers with a new TypeError, message and stack, about 20 µs. A publication reading the folders
 * of a 10,000-file branch makes some 800 such calls. This one answers at once, with one error.
 */
const NO_PATH = new TypeError('a file system read without a path');
function promiseFs(readFile: typeof fs.promises.readFile): FsClient {
  const answering = ((
    path: Parameters<typeof fs.promises.readFile>[0],
    options?: Parameters<typeof fs.promises.readFile>[1],
  ) =>
    path === undefined ? Promise.reject(NO_PATH) : readFile(path, options)) as typeof fs.promises.readFile;
  return { promises: { ...fs.promises, readFile: answering } };
}

/** node's file system, for an object cache that knows no object, with the cheap answer above. */
const probedFs = promiseFs(fs.promises.readFile.bind(fs.promises));
