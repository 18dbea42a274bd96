import * as fs from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { forgetReadCache, keptReadCache, packsHeld } from '../../../shared/git/kept-read-cache';
import { runGit } from '../../support/git/run-git';

// isomorphic-git parses a pack's whole index on the first read through a cache object
// (`readPackIndex`); a publication on a 100,000-file branch paid that (a 2.8 MB index) every window.

let gitdir: string;
let blobs: string[];
beforeEach(async () => {
  const root = await mkdtemp(join(tmpdir(), 'kept-read-cache-'));
  gitdir = join(root, 'r.git');
  await runGit({ args: ['init', '-q', '--bare', gitdir] });
  blobs = await Promise.all(
    ['0\n', '1\n'].map((content) =>
      runGit({ args: ['--git-dir', gitdir, 'hash-object', '-w', '--stdin'], input: content }),
    ),
  );
  // one pack holding both, as a fetch leaves it
  await runGit({
    args: ['--git-dir', gitdir, 'pack-objects', '-q', join(gitdir, 'objects', 'pack', 'pack')],
    input: `${blobs.join('\n')}\n`,
  });
  await runGit({ args: ['--git-dir', gitdir, 'prune-packed'] });
});
afterEach(() => jest.restoreAllMocks());

function countIndexReads(): Map<string, number> {
  const reads = new Map<string, number>();
  const real = fs.promises.readFile.bind(fs.promises);
  jest.spyOn(fs.promises, 'readFile').mockImplementation((path, options) => {
    if (typeof path === 'string' && path.endsWith('.idx')) reads.set(path, (reads.get(path) ?? 0) + 1);
    return real(path, options);
  });
  return reads;
}

describe('the read cache kept per object folder', () => {
  it('parses a pack index once across publications', async () => {
    const [first, second] = blobs;
    const reads = countIndexReads();

    await git.readObject({ fs, gitdir, oid: first!, cache: await keptReadCache(gitdir) });
    await git.readObject({ fs, gitdir, oid: second!, cache: await keptReadCache(gitdir) });

    expect([...reads.values()]).toEqual([1]);
  });

  it('drops the parsed index of a pack no longer on disk', async () => {
    const [first] = blobs;
    await git.readObject({ fs, gitdir, oid: first!, cache: await keptReadCache(gitdir) });
    const packDir = join(gitdir, 'objects', 'pack');
    const before = packsHeld(await keptReadCache(gitdir));
    expect(before).toHaveLength(1);

    // as compactObjectCache removes the small packs it merged, or a `git gc` a local repository's
    for (const name of await readdir(packDir)) await rm(join(packDir, name));

    expect(packsHeld(await keptReadCache(gitdir))).toEqual([]);
  });

  it('starts afresh once forgotten (a read through it failed, the folder started again)', async () => {
    const [first] = blobs;
    const cache = await keptReadCache(gitdir);
    await git.readObject({ fs, gitdir, oid: first!, cache });

    forgetReadCache(gitdir);

    const again = await keptReadCache(gitdir);
    expect(again).not.toBe(cache);
    expect(packsHeld(again)).toEqual([]);
  });
});
