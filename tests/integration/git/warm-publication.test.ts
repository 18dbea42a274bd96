import * as fs from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { compactionSettled } from '../../../shared/git/compact-object-cache';
import { keptReadCache, packsHeld } from '../../../shared/git/kept-read-cache';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { fsck, type GitWorld, startGitWorld } from './git-fixture';

// A steady stream publishes every window on the same branch: what a warm publication costs is paid
// every second. These count that work (requests, pack indexes read), never its time.

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterEach(() => {
  world.proxy.reset();
  jest.restoreAllMocks();
});
afterAll(() => world.stop());

const FOLDERS = 80;

/** `n` files over FOLDERS namespaces, as a cluster's repository lays them out. */
const manyFiles = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`ns${i % FOLDERS}/cm-${i}.yaml`, `name: cm-${i}\n`]),
  );

/**
 * A window's worth of changes: `modified` existing files changed and `added` new ones, in ten
 * namespaces no earlier round touched (a stream across 200 namespaces reaches folders this worker
 * has not read yet, whose trees only the fetched pack holds).
 */
const windowOf = (round: number, modified = 15, added = 5) => {
  const folder = (i: number) => (round * 10 + (i % 10)) % FOLDERS;
  return aWrite({
    files: {
      ...Object.fromEntries(
        Array.from({ length: modified }, (_, i) => [
          `ns${folder(i)}/cm-${folder(i) + FOLDERS * (i % 5)}.yaml`,
          `v: ${round}\n`,
        ]),
      ),
      ...Object.fromEntries(
        Array.from({ length: added }, (_, i) => [`ns${folder(i)}/new-${round}-${i}.yaml`, 'new\n']),
      ),
    },
  });
};

async function cacheGitdir(cacheDir: string): Promise<string> {
  const [name] = await readdir(cacheDir);
  return join(cacheDir, name!);
}

async function largestIndex(gitdir: string): Promise<string> {
  const dir = join(gitdir, 'objects', 'pack');
  const sized = (await readdir(dir))
    .filter((name) => name.endsWith('.idx'))
    .map((name) => ({ path: `${dir}/${name}`, size: fs.statSync(join(dir, name)).size }));
  return sized.sort((a, b) => b.size - a.size)[0]!.path;
}

/** Counts, per pack index file, how often `run` reads it from disk. */
async function indexReadsDuring(run: () => Promise<unknown>): Promise<Map<string, number>> {
  const reads = new Map<string, number>();
  const real = fs.promises.readFile.bind(fs.promises);
  jest.spyOn(fs.promises, 'readFile').mockImplementation((path, options) => {
    if (typeof path === 'string' && path.endsWith('.idx')) reads.set(path, (reads.get(path) ?? 0) + 1);
    return real(path, options);
  });
  await run();
  jest.restoreAllMocks();
  return reads;
}

describe('a publication on a warm branch (a steady stream)', () => {
  it('sends only its push and reads no pack index: parsed indexes and whole packs are remembered between publications', async () => {
    const { url, gitdir } = await world.repo({ files: manyFiles(400) });
    const cacheDir = await world.cacheDir();
    const remote = { kind: 'http' as const, url };
    expect(await publish({ remote, branch: 'main', writes: [windowOf(1)], cacheDir })).toMatchObject({
      kind: 'published',
    });
    const fetched = await largestIndex(await cacheGitdir(cacheDir));
    const seen = world.proxy.requests.length;
    const connections = world.proxy.connectionsOpened();
    const warm = 5;

    const results: unknown[] = [];
    const reads = await indexReadsDuring(async () => {
      for (let round = 2; round < 2 + warm; round++) {
        results.push(await publish({ remote, branch: 'main', writes: [windowOf(round)], cacheDir }));
      }
    });

    expect(results).toEqual(
      Array.from({ length: warm }, () => expect.objectContaining({ kind: 'published' })),
    );
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual(
      Array.from({ length: warm }, () => 'push'),
    );
    // no warm publication reads it: the fetch put it in whole, so the cache's check on opening
    // (open-object-cache.ts) remembers it whole while the file is unchanged (every publication read
    // and hashed it before: 2.8 MB at 100,000 files, and later the first one after the fetch did);
    // and a lookup walks the packs in directory order, so an unkept cache parsed it again whenever
    // the object sought came after it
    expect(reads.get(fetched)).toBeUndefined();
    expect(reads.size).toBe(0);
    // the pushes of a stream share one connection: no TCP (on a real host, TLS) handshake per window
    expect(world.proxy.connectionsOpened() - connections).toBe(0);
    await fsck(gitdir);
  });

  it('keeps no parsed index of a pack merged away, and still publishes after the merge', async () => {
    const { url, gitdir } = await world.repo({ files: manyFiles(100) });
    const cacheDir = await world.cacheDir();
    const remote = { kind: 'http' as const, url };
    // more publications than compactObjectCache's maxPacks small packs: at least one merge
    for (let round = 1; round <= 11; round++) {
      const result = await publish({ remote, branch: 'main', writes: [windowOf(round, 3, 1)], cacheDir });
      expect(result).toMatchObject({ kind: 'published' });
      // a publication reads its tip and folders from what it knows (known-objects.ts); one that reads
      // a file the branch holds (a replica count, a collection delete with a selector) looks through
      // the packs, parsing their indexes into the kept cache: as this read of the tip's files does
      const cached = await cacheGitdir(cacheDir);
      const head = (result as { head: string }).head;
      await git.readTree({ fs, gitdir: cached, oid: head, cache: await keptReadCache(cached) });
    }
    const cached = await cacheGitdir(cacheDir);
    await compactionSettled(cached);
    const onDisk = (await readdir(join(cached, 'objects', 'pack')))
      .filter((name) => name.endsWith('.idx'))
      .map((name) => `${cached}/objects/pack/${name}`);

    const held = packsHeld(await keptReadCache(cached));

    expect(onDisk.length).toBeLessThan(11);
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((path) => onDisk.includes(path))).toBe(true);
    await fsck(gitdir);
  });
});
