/**
 * A long-lived worker publishes to many branches and keeps a read cache for each (issue 18: the
 * worker within 256 MiB whatever it publishes). Once a publication is done, what its branch's kept
 * cache holds is the parsed indexes of the cache's packs, compactly: not the packs isomorphic-git
 * read whole to read the branch's tip and folders, which with three 10,000-file branches were
 * about 27 MiB at every later publication's peak.
 *
 * Each publication runs in a process of its own (`kept-cache-in-child.ts`), as a worker restarted on
 * a warm cache does: the one measured reads the tip and folders from the cache's packs, none of them
 * known in memory (a fetch's or a push's objects, `known-objects.ts`, which a publication in the
 * same process would read instead). And the drop is measured in a heap no other test used: a jest
 * worker that ran other test files first goes on letting go of their code and objects over the full
 * collections a measure runs (40 to 225 KB of code, bytecode and old space between the two
 * measures, in full runs on Node 22), which the drop counted as the cache's.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { incompressibleFiles } from '../../support/git/incompressible-files';
import { fsck, type GitWorld, startGitWorld } from './git-fixture';

const run = promisify(execFile);

const FILES = 2_000;
/** A parsed index kept as a table: a SHA-1, its first four bytes and an offset, 32 bytes an object, with room. */
const KEPT_PER_OBJECT = 40;
/** What the heap holds besides moves by some tens of KB between two measures. */
const NOISE = 128 * 1024;

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterAll(() => world.stop());

async function packsOf(cacheDir: string): Promise<{ objects: number; bytes: number }> {
  const [name] = await readdir(cacheDir);
  const dir = join(cacheDir, name!, 'objects', 'pack');
  let objects = 0;
  let bytes = 0;
  for (const file of await readdir(dir)) {
    if (file.endsWith('.pack')) bytes += (await stat(join(dir, file))).size;
    // a v2 index's last fan-out entry counts its objects (gitformat-pack(5))
    if (file.endsWith('.idx')) objects += (await readFile(join(dir, file))).readUInt32BE(8 + 255 * 4);
  }
  return { objects, bytes };
}

const measured = z.object({ kind: z.string(), kept: z.number() });

/** One publication changing `files` files, in a process of its own: its outcome and the kept cache's memory. */
async function publishInChild(input: { url: string; cacheDir: string; files: number }) {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'kept-cache-in-child.ts'), JSON.stringify(input)],
    { cwd: join(__dirname, '..', '..', '..') },
  );
  return measured.parse(JSON.parse(stdout.trim().split('\n').pop()!));
}

test('given a worker started on the cache of a branch, when it publishes, then its kept read cache holds the pack indexes it read as tables and none of the packs', async () => {
  const { url, gitdir } = await world.repo({ files: incompressibleFiles(FILES) });
  const cacheDir = await world.cacheDir();
  // a worker fetches the branch into its cache, and is gone
  expect(await publishInChild({ url, cacheDir, files: 1 })).toMatchObject({ kind: 'published' });
  // the next worker finds the tip and every folder in the cache's packs, not in memory: every file
  // changed, a pack as large as the fetched one
  const { kind, kept } = await publishInChild({ url, cacheDir, files: FILES });
  expect(kind).toBe('published');

  const packs = await packsOf(cacheDir);
  // what keeping the packs would hold: a test that could not tell is no test
  expect(packs.bytes).toBeGreaterThan(2 * (packs.objects * KEPT_PER_OBJECT + NOISE));
  expect(kept).toBeLessThanOrEqual(packs.objects * KEPT_PER_OBJECT + NOISE);
  await fsck(gitdir);
}, 60_000);
