import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { readdir, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { compactionSettled } from '../../../shared/git/compact-object-cache';
import { knownObjectCount } from '../../../shared/git/known-objects';
import { objectCacheFolder } from '../../../shared/git/open-object-cache';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { publishFile } from '../../support/git/publish-file';
import { runGit } from '../../support/git/run-git';
import { fsck, type GitWorld, logOf, startGitWorld } from './git-fixture';
import { otherWriter } from './other-writer';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterEach(() => world.proxy.reset());
afterAll(() => world.stop());

/** The cache's pack folder once the merge its last publication started (if any) has ended. */
async function packsIn(cacheDir: string): Promise<string[]> {
  const [gitdir] = await readdir(cacheDir);
  await compactionSettled(join(cacheDir, gitdir!));
  const dir = join(cacheDir, gitdir!, 'objects', 'pack');
  return (await readdir(dir)).map((name) => join(dir, name));
}

describe('the per-branch object cache', () => {
  it('indexes a fetched history full of deltas so that git verifies it, and builds on it', async () => {
    const big = (rev: number) =>
      Array.from({ length: 400 }, (_, i) => `line ${i}: ${i % 50 === rev ? 'changed' : 'same'}\n`).join('');
    const { url, gitdir } = await world.repo({ files: { 'big.yaml': big(0) } });
    const commits = [1, 2, 3, 4].map(
      (rev) =>
        `commit refs/heads/main\ncommitter c <c@example.invalid> ${1_700_000_000 + rev} +0000\ndata 2\nc${rev}\nfrom refs/heads/main^0\nM 100644 inline big.yaml\ndata ${Buffer.byteLength(big(rev))}\n${big(rev)}\n`,
    );
    await runGit({ args: ['--git-dir', gitdir, 'fast-import', '--quiet'], input: commits.join('') });
    await runGit({ args: ['--git-dir', gitdir, 'repack', '-adfq'] });
    const cacheDir = await world.cacheDir();

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'small.yaml': 's\n' } })],
      cacheDir,
    });

    expect(result).toMatchObject({ kind: 'published' });
    const verified = await runGit({
      args: ['verify-pack', '-v', ...(await packsIn(cacheDir)).filter((f) => f.endsWith('.idx'))],
    });
    expect(verified).toMatch(/chain length = [1-9]/);
    expect(await runGit({ args: ['--git-dir', gitdir, 'show', 'main:big.yaml'] })).toBe(big(4).trimEnd());
    await fsck(gitdir);
  });

  it('reads no pack index to open the cache or to read the tip and its folders: the fetched ones and the pushed commit are known', async () => {
    const { url } = await world.repo({
      files: Object.fromEntries([1, 2, 3].map((i) => [`f${i}.yaml`, `${i}\n`])),
    });
    const cacheDir = await world.cacheDir();
    // isomorphic-git reads a pack index with fs.promises.readFile (its FileSystem binds it per call)
    // and keeps it parsed in the cache object it is given, by file name
    const readFile = jest.spyOn(fs.promises, 'readFile');
    const readsPerIndex = () => {
      const reads = new Map<string, number>();
      for (const [path] of readFile.mock.calls)
        if (String(path).endsWith('.idx')) reads.set(String(path), (reads.get(String(path)) ?? 0) + 1);
      return [...reads.values()];
    };
    const publishOne = (file: string) => publishFile({ url, cacheDir, file });
    try {
      // cold: the tip and the folders on the written path are read from what the fetch indexed
      // (known-objects.ts), not from the pack, whose whole index isomorphic-git would parse first
      expect(await publishOne('a.yaml')).toMatchObject({ kind: 'published' });
      expect(readsPerIndex()).toEqual([]);
      expect(knownObjectCount(objectCacheFolder({ cacheDir, key: `${url}\nmain` }))).toBeGreaterThan(1);

      // warm: no index is read, to open the cache or to read from it. Both packs were put in whole
      // by this process (the fetched one and the pushed one: whole-packs.ts), so opening the cache
      // reads neither back to check it; the tip is the commit pushed last, and the folders are the
      // tree editor's kept views
      readFile.mockClear();
      expect(await publishOne('b.yaml')).toMatchObject({ kind: 'published' });
      expect(readsPerIndex()).toEqual([]);
    } finally {
      readFile.mockRestore();
    }
  });

  it('is reused: a second publication sends only its push when the remote did not move', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir,
    });
    const seen = world.proxy.requests.length;

    const second = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'c.yaml': 'c\n' } })],
      cacheDir,
    });

    expect(second).toMatchObject({ kind: 'published' });
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual(['push']);
  });

  it('keeps the blobs it pushed: a later publication reads the files it holds (a selected collection delete, a replica count) without a fetch', async () => {
    const { url, gitdir } = await world.repo({ files: { 'README.md': 'r\n' } });
    const cacheDir = await world.cacheDir();
    await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [
        aWrite({
          files: { 'a.yaml': 'app: batch\n', 'b.yaml': 'app: web\n', 'r.yaml': 'spec:\n  replicas: 1\n' },
        }),
      ],
      cacheDir,
    });
    const seen = world.proxy.requests.length;

    const read: string[] = [];
    const second = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [
        aWrite({
          operations: [
            {
              op: 'remove-matching',
              scope: '.',
              match: '^[ab]\\.yaml$',
              selects: (content) => {
                read.push(Buffer.from(content).toString());
                return Buffer.from(content).toString() === 'app: batch\n';
              },
            },
            {
              op: 'edit',
              path: 'r.yaml',
              edit: (content) => Buffer.from(content).toString().replace('1', '3'),
              missing: 'r.yaml is not held',
            },
          ],
        }),
      ],
      cacheDir,
    });

    expect(second).toMatchObject({ kind: 'published' });
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual(['push']);
    expect(read.sort()).toEqual(['app: batch\n', 'app: web\n']);
    const files = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '--name-only', 'main'] });
    expect(files.split('\n')).toEqual(['README.md', 'b.yaml', 'r.yaml']);
    expect(await runGit({ args: ['--git-dir', gitdir, 'show', 'main:r.yaml'] })).toBe('spec:\n  replicas: 3');
    await fsck(gitdir);
  });

  it('fetches the files again, once, when its cache kept only the commits and trees it pushed (as 0.3.0 did)', async () => {
    const { url, gitdir } = await world.repo({ files: { 'README.md': 'r\n' } });
    const cacheDir = await world.cacheDir();
    await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'a.yaml': 'app: batch\n', 'b.yaml': 'app: web\n' } })],
      cacheDir,
    });
    // the cache as 0.3.0 left it: every pack rewritten without its blobs
    const [cache] = await readdir(cacheDir);
    const cachedir = join(cacheDir, cache!);
    const listed = await runGit({
      args: [
        '--git-dir',
        cachedir,
        'cat-file',
        '--batch-all-objects',
        '--batch-check=%(objectname) %(objecttype)',
      ],
    });
    const kept = listed
      .split('\n')
      .filter((line) => !line.endsWith(' blob'))
      .map((line) => line.split(' ')[0])
      .join('\n');
    const old = await packsIn(cacheDir);
    await runGit({
      args: ['--git-dir', cachedir, 'pack-objects', '-q', join(cachedir, 'objects', 'pack', 'pack')],
      input: `${kept}\n`,
    });
    for (const file of old) await rm(file);
    await expect(
      runGit({ args: ['--git-dir', cachedir, 'cat-file', '-e', 'main:a.yaml'] }),
    ).rejects.toBeDefined();

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [
        aWrite({
          operations: [
            {
              op: 'remove-matching',
              scope: '.',
              match: '^[ab]\\.yaml$',
              selects: (content) => Buffer.from(content).toString() === 'app: batch\n',
            },
          ],
        }),
      ],
      cacheDir,
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect(
      (await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '--name-only', 'main'] })).split('\n'),
    ).toEqual(['README.md', 'b.yaml']);
    await fsck(gitdir);
  });

  it('is refreshed when the remote moved: the guessed push is refused, then only the new commits are fetched', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir,
    });
    const pushOne = await otherWriter({
      url: `${world.serverUrl}/${gitdir.split('/').pop()}`,
      root: world.root,
    });
    await pushOne();
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'c.yaml': 'c\n' } })],
      cacheDir,
      maxAttempts: 1,
    });

    expect(result).toMatchObject({ kind: 'published', attempts: 1 });
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual([
      'push',
      'refs',
      'ls-refs',
      'fetch',
      'push',
    ]);
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual([
      expect.stringMatching(/^write/),
      'other writer 1',
      expect.stringMatching(/^write/),
      'seed',
    ]);
  });

  it('survives a publication killed mid-push, and the next one lands every write once', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const writes = [aWrite({ id: 'k1', files: { 'b.yaml': 'b\n' } }), aWrite({ id: 'k2', empty: true })];
    world.proxy.inject({ on: 'push', fault: { kind: 'stall' } });
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, 'publish-in-child.ts'),
        JSON.stringify({ remote: { kind: 'http', url }, branch: 'main', writes, cacheDir }),
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 300 && !world.proxy.requests.some((r) => r.fault === 'stall'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    await exited;

    const result = await publish({ remote: { kind: 'http', url }, branch: 'main', writes, cacheDir });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: false });
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual(['write k2', 'write k1', 'seed']);
    await fsck(gitdir);
  });

  it('reads a cache tip left empty (its write is not synced: a power cut can leave it so) as no tip, and asks the remote', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const remote = { kind: 'http' as const, url };
    await publish({ remote, branch: 'main', writes: [aWrite({ files: { 'b.yaml': 'b\n' } })], cacheDir });
    const [cached] = await readdir(cacheDir);
    await truncate(join(cacheDir, cached!, 'refs', 'heads', 'main'), 0);
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote,
      branch: 'main',
      writes: [aWrite({ id: 'after', files: { 'c.yaml': 'c\n' } })],
      cacheDir,
    });

    expect(result).toMatchObject({ kind: 'published', attempts: 1 });
    // the listing, then the push (the objects are in the cache still): no guess from a tip it does not have
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual(['refs', 'ls-refs', 'push']);
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual([
      'write after',
      expect.any(String),
      'seed',
    ]);
    await fsck(gitdir);
  });

  it('drops a pack cut short (as a kill while writing leaves it) and fetches again', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir,
    });
    for (const file of await packsIn(cacheDir)) {
      if (file.endsWith('.pack')) await truncate(file, Math.floor((await stat(file)).size / 2));
    }
    const pushOne = await otherWriter({
      url: `${world.serverUrl}/${gitdir.split('/').pop()}`,
      root: world.root,
    });
    await pushOne();

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'after', files: { 'c.yaml': 'c\n' } })],
      cacheDir,
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual([
      'write after',
      'other writer 1',
      expect.any(String),
      'seed',
    ]);
    await fsck(gitdir);
  });

  it('checks again a pack this process found whole once it is rewritten in place (same file, same size), and fetches again', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const publishOne = (id: string) =>
      publish({
        remote: { kind: 'http', url },
        branch: 'main',
        writes: [aWrite({ id, files: { [`${id}.yaml`]: `${id}\n` } })],
        cacheDir,
      });
    expect(await publishOne('first')).toMatchObject({ kind: 'published' });
    const checked = await packsIn(cacheDir);
    // this publication's opening finds those packs whole and remembers them
    expect(await publishOne('second')).toMatchObject({ kind: 'published' });
    // what a bad disk or a writer inside the folder leaves: the file, its size and its inode kept,
    // its pack trailer no longer the one its index names
    for (const file of checked) {
      if (!file.endsWith('.pack')) continue;
      const handle = await fs.promises.open(file, 'r+');
      try {
        await handle.write(Buffer.alloc(20), 0, 20, (await handle.stat()).size - 20);
      } finally {
        await handle.close();
      }
    }
    const fetchesBefore = world.proxy.requests.filter((r) => r.kind === 'fetch').length;

    expect(await publishOne('third')).toMatchObject({ kind: 'published' });

    // the cache started again, cold: one fetch, and no pack left that does not match its index
    expect(world.proxy.requests.filter((r) => r.kind === 'fetch').length - fetchesBefore).toBe(1);
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual([
      'write third',
      'write second',
      'write first',
      'seed',
    ]);
    await fsck(gitdir);
  });

  it('stays a few packs after many publications, and keeps building on the right trees', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    for (let i = 0; i < 12; i++) {
      const write = aWrite({ id: `many-${i}`, files: { [`d${i % 3}/f${i}.yaml`]: `i: ${i}\n` } });
      expect(
        await publish({ remote: { kind: 'http', url }, branch: 'main', writes: [write], cacheDir }),
      ).toMatchObject({
        kind: 'published',
      });
    }

    expect((await packsIn(cacheDir)).filter((f) => f.endsWith('.pack')).length).toBeLessThanOrEqual(9);
    const files = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'main'] });
    expect(files.split('\n')).toHaveLength(13);
    await fsck(gitdir);
  });
});
