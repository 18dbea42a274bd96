import { createHash } from 'node:crypto';
import * as git from 'isomorphic-git';
import { GitObjectCorrupt } from './errors';
import { isKnownObject, readingFs } from './known-objects';

/**
 * Reads an object and checks that it hashes to its id. isomorphic-git checks loose objects, but
 * returns a packed one as the pack holds it (`_readObject`: "Directly return packed result"), and
 * the object cache's packs stay on disk between publications: a pack changed there (a bad disk, or
 * someone who could write the folder) would otherwise become a tree in the next commit. An object
 * known in memory is served where isomorphic-git reads a loose one, which it checks itself: it is
 * not read a second time here.
 * @throws GitObjectCorrupt naming the object
 */
async function checkObject(gitdir: string, oid: string, cache: object): Promise<void> {
  if (isKnownObject(gitdir, oid)) return;
  const { type, object } = await git.readObject({
    fs: readingFs(gitdir),
    gitdir,
    oid,
    format: 'content',
    cache,
  });
  const bytes = object as Uint8Array;
  const sha = createHash('sha1').update(`${type} ${bytes.length}\0`).update(bytes).digest('hex');
  if (sha !== oid) throw new GitObjectCorrupt({ oid, found: sha });
}

/** A tree's entries, once its bytes are checked against its id. */
export async function readCheckedTree(gitdir: string, oid: string, cache: object): Promise<git.TreeObject> {
  await checkObject(gitdir, oid, cache);
  return (await git.readTree({ fs: readingFs(gitdir), gitdir, oid, cache })).tree;
}

/** A commit, once its bytes are checked against its id. */
export async function readCheckedCommit(
  gitdir: string,
  oid: string,
  cache: object,
): Promise<git.CommitObject> {
  await checkObject(gitdir, oid, cache);
  return (await git.readCommit({ fs: readingFs(gitdir), gitdir, oid, cache })).commit;
}
