/**
 * A cold fetch of a large branch arrives as one pack of mostly deltas. Reading it must not hold
 * every object of the branch inflated at once (issue 18: a long-lived worker within 256 MiB): only
 * the delta bases cache keeps object bytes, within its byte bound, and what falls out of it is
 * inflated again. Checked against git's own index of the same pack.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeltaBaseCache } from '../../../shared/git/delta-base-cache';
import { indexPack } from '../../../shared/git/index-pack';
import { readPack } from '../../../shared/git/unpack-objects';

const FILES = 400;
const BOUND = 64 * 1024;

/** Files alike enough that `git repack` stores most of them as deltas, in long chains. */
function contentOf(i: number): string {
  const lines = Array.from(
    { length: 120 },
    (_, k) => `  key-${k}: value-${k}${k === i % 120 ? `-${i}` : ''}`,
  );
  return `name: obj-${i}\ndata:\n${lines.join('\n')}\n`;
}

let dir: string;
let pack: Buffer;
let gitIdx: Buffer;
let deltas: number;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'read-pack-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: dir,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.invalid',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.invalid',
      },
    });
  git('init', '-q', '-b', 'main');
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `obj-${i}.yaml`), contentOf(i));
  git('add', '-A');
  git('commit', '-q', '-m', 'objects');
  git('repack', '-adfq', '--window=50', '--depth=50');
  const packDir = join(dir, '.git', 'objects', 'pack');
  const name = readdirSync(packDir).find((n) => n.endsWith('.pack'))!;
  pack = readFileSync(join(packDir, name));
  gitIdx = readFileSync(join(packDir, name.replace(/\.pack$/, '.idx')));
  // `git verify-pack -v`: one line per object, with its depth and base when it is a delta
  deltas = git('verify-pack', '-v', join(packDir, name))
    .toString()
    .split('\n')
    .filter((line) => /^[0-9a-f]{40} +\w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(line)).length;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a pack of deltas is indexed as git indexes it, holding no more object bytes than the bound', () => {
  let inflatedBytes = 0;
  let objects = 0;
  readPack({
    pack,
    visit: ({ data }) => {
      inflatedBytes += data.length;
      objects++;
    },
  });
  expect(objects).toBe(FILES + 2);
  // the bound is a small part of the pack's content: keeping every object would break it
  expect(inflatedBytes).toBeGreaterThan(10 * BOUND);
  // and most objects are deltas, some on bases long out of the cache
  expect(deltas).toBeGreaterThan(FILES / 2);

  const bases = createDeltaBaseCache({ maxBytes: BOUND });
  const { idx } = indexPack({ pack, bases });
  expect(idx.equals(gitIdx)).toBe(true);
  expect(bases.peakBytes).toBeGreaterThan(0);
  expect(bases.peakBytes).toBeLessThanOrEqual(BOUND);
});

test('a base that fell out of a cache too small for any object is inflated again', () => {
  const bases = createDeltaBaseCache({ maxBytes: 1 });
  expect(indexPack({ pack, bases }).idx.equals(gitIdx)).toBe(true);
  expect(bases.peakBytes).toBe(0);
});

test('the cache drops its least recently used bases first, and holds only their own bytes', () => {
  const cache = createDeltaBaseCache({ maxBytes: 3_500 });
  const object = () => Buffer.alloc(1_000, 7);
  cache.set(1, object());
  cache.set(2, object());
  cache.set(3, object());
  expect(cache.get(1)).toBeDefined();
  cache.set(4, object());
  expect(cache.get(2)).toBeUndefined();
  expect([1, 3, 4].map((offset) => cache.get(offset) !== undefined)).toEqual([true, true, true]);
  expect(cache.peakBytes).toBeGreaterThan(3 * 1_000);
  expect(cache.peakBytes).toBeLessThanOrEqual(3_500);
  // a small buffer is a slice of node's shared pool: kept as it is, it would keep the whole slab
  const small = Buffer.from('kind: ConfigMap\n');
  expect(small.buffer.byteLength).toBeGreaterThan(small.length);
  cache.set(5, small);
  expect(cache.get(5)?.buffer.byteLength).toBe(small.length);
  expect(cache.get(5)?.equals(small)).toBe(true);
});
