/**
 * A long-lived worker keeps a read cache per object folder between publications (issue 18: within
 * 256 MiB, whatever it publishes). isomorphic-git reads a whole pack into memory to read one object
 * from it and keeps it for as long as the cache lives; with three branches of 10,000 files that was
 * about 27 MiB of packs and 12 MiB of parsed indexes at every publication's peak. Between
 * publications a kept cache holds its parsed indexes, compactly, and no pack.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { forgetReadCache, keptReadCache, leanReadCache } from '../../../shared/git/kept-read-cache';
import { runGit } from '../../support/git/run-git';
import { settledHeldBytes } from '../../support/held-bytes';

const OBJECTS = 3_000;
/** A parsed index kept as a table: a SHA-1, its first four bytes and an offset, 32 bytes an object, with room. */
const KEPT_PER_OBJECT = 40;
/** What the heap holds besides moves by some tens of KB between two measures. */
const NOISE = 96 * 1024;

let root: string;
let gitdir: string;
let oids: string[];
let packFile: string;

/** A bare repository holding `count` blobs of 1 KiB, hardly compressible, in one pack, as a fetch leaves it. */
async function packedRepository(dir: string, count: number): Promise<{ gitdir: string; oids: string[] }> {
  const at = join(dir, 'r.git');
  await runGit({ args: ['init', '-q', '--bare', at] });
  const stream = Array.from(
    { length: count },
    (_, i) => `blob\nmark :${i + 1}\ndata 1024\n${randomBytes(512).toString('hex')}\n`,
  ).join('');
  await runGit({
    args: ['--git-dir', at, 'fast-import', '--quiet', `--export-marks=${join(dir, 'marks')}`],
    input: stream,
  });
  const marks = fs.readFileSync(join(dir, 'marks'), 'utf8');
  return {
    gitdir: at,
    oids: marks
      .trim()
      .split('\n')
      .map((line) => line.split(' ')[1]!),
  };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kept-read-cache-memory-'));
  ({ gitdir, oids } = await packedRepository(join(root, 'a'), OBJECTS));
  const packDir = join(gitdir, 'objects', 'pack');
  packFile = join(packDir, (await readdir(packDir)).find((name) => name.endsWith('.pack'))!);
  // the first publication compiles isomorphic-git's reading code and the cache's: not held for the pack
  await readSome();
  await leanReadCache(gitdir);
  forgetReadCache(gitdir);
});
afterAll(() => rm(root, { recursive: true, force: true }));
afterEach(() => {
  forgetReadCache(gitdir);
  jest.restoreAllMocks();
});

/** A publication's reads through the folder's kept cache: every tenth object. */
async function readSome(): Promise<void> {
  const cache = await keptReadCache(gitdir);
  for (let i = 0; i < OBJECTS; i += 10) await git.readObject({ fs, gitdir, oid: oids[i]!, cache });
}

describe('a kept read cache between publications', () => {
  it('given a publication read through it, then it holds the pack’s index as a table and not the pack', async () => {
    const before = await settledHeldBytes();
    await readSome();
    const reading = (await settledHeldBytes()) - before;
    await leanReadCache(gitdir);
    const between = (await settledHeldBytes()) - before;

    const { size } = await stat(packFile);
    // reading held the whole pack (isomorphic-git's loadPack): what the worker let go of
    expect(reading - between).toBeGreaterThan(size / 2);
    expect(between).toBeLessThanOrEqual(OBJECTS * KEPT_PER_OBJECT + NOISE);
  });

  it('given it let go of the pack, then the next publication reads every object again without parsing the index again', async () => {
    await readSome();
    await leanReadCache(gitdir);
    const indexReads = jest.spyOn(fs.promises, 'readFile');

    const cache = await keptReadCache(gitdir);
    for (const oid of [oids[0]!, oids[OBJECTS - 1]!, oids[OBJECTS >> 1]!]) {
      const { object } = await git.readObject({ fs, gitdir, oid, cache });
      expect(Buffer.from(object as Uint8Array)).toHaveLength(1024);
    }

    expect(indexReads.mock.calls.filter(([path]) => String(path).endsWith('.idx'))).toEqual([]);
  });

  it('given its pack changed on disk since, then the next read finds it damaged instead of trusting what it read before', async () => {
    await readSome();
    await leanReadCache(gitdir);
    const original = fs.readFileSync(packFile);
    try {
      // one byte inside the first object's deflated data
      const file = await open(packFile, 'r+');
      await file.write(Buffer.from([original[40]! ^ 0xff]), 0, 1, 40);
      await file.close();

      await expect(
        git.readObject({ fs, gitdir, oid: oids[OBJECTS - 1]!, cache: await keptReadCache(gitdir) }),
      ).rejects.toThrow(/corrupted/);
    } finally {
      fs.writeFileSync(packFile, original);
    }
  });
});
