/**
 * A long-lived worker publishes to many branches and keeps a read cache for each (issue 18: the
 * worker within 256 MiB whatever it publishes). Once a publication is done, what its branch's kept
 * cache holds is the parsed indexes of the cache's packs, compactly: not the packs isomorphic-git
 * read whole to read the branch's tip and folders, which with three 10,000-file branches were
 * about 27 MiB at every later publication's peak.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compactionSettled } from '../../../shared/git/compact-object-cache';
import { forgetReadCache } from '../../../shared/git/kept-read-cache';
import { pushAnswersRead } from '../../../shared/git/open-http-session';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { settledHeldBytes } from '../../support/held-bytes';
import { fsck, type GitWorld, startGitWorld } from './git-fixture';

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

/** Files of about 1 KiB that hardly compress, over 20 folders: the packs weigh about what the files do. */
const filesOf = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `ns${i % 20}/cm-${i}.yaml`,
      `data: ${randomBytes(500).toString('hex')}\n`,
    ]),
  );

async function packsOf(cacheDir: string): Promise<{ objects: number; bytes: number }> {
  const [name] = await readdir(cacheDir);
  await compactionSettled(join(cacheDir, name!));
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

test('given a branch published to, then its kept read cache holds its pack indexes as tables and none of its packs', async () => {
  const { url, gitdir } = await world.repo({ files: filesOf(FILES) });
  const cacheDir = await world.cacheDir();
  const remote = { kind: 'http' as const, url };
  // the first publication fetches the branch and compiles what publishing runs: not what is measured
  expect(
    await publish({ remote, branch: 'main', writes: [aWrite({ files: filesOf(1) })], cacheDir }),
  ).toMatchObject({
    kind: 'published',
  });
  // every file changed: a pack as large as the fetched one, whose tip and folders the next one reads
  expect(
    await publish({ remote, branch: 'main', writes: [aWrite({ files: filesOf(FILES) })], cacheDir }),
  ).toMatchObject({
    kind: 'published',
  });

  const [name] = await readdir(cacheDir);
  // the rest of the last push's answer is read after the publication returns, and the proxy (in
  // this process) closes its connection to the server after that: neither is what is measured
  await pushAnswersRead();
  await world.proxy.upstreamClosed();
  const withCache = await settledHeldBytes();
  forgetReadCache(join(cacheDir, name!));
  const kept = withCache - (await settledHeldBytes());

  const packs = await packsOf(cacheDir);
  // what keeping the packs would hold: a test that could not tell is no test
  expect(packs.bytes).toBeGreaterThan(2 * (packs.objects * KEPT_PER_OBJECT + NOISE));
  expect(kept).toBeLessThanOrEqual(packs.objects * KEPT_PER_OBJECT + NOISE);
  await fsck(gitdir);
});
