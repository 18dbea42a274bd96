import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { encodePack } from '../../../shared/git/encode-pack';
import { installPack } from '../../../shared/git/install-pack';
import { mergePacks, type PackWithIndex } from '../../../shared/git/merge-packs';
import { createObjectStore } from '../../../shared/git/object-store';
import { runGit } from '../../support/git/run-git';

// The object cache merges its packs on a publication's path (compact-object-cache.ts): what a merge
// does per entry is paid for every object of the cache's large pack each time it is merged. These
// count that work; `git verify-pack` (which inflates and hashes every entry and checks every CRC-32
// and both checksums) and `git fsck` check the result.

afterEach(() => jest.restoreAllMocks());

async function bareRepository(): Promise<string> {
  const gitdir = join(await mkdtemp(join(tmpdir(), 'merge-packs-')), 'm.git');
  await runGit({ args: ['init', '-q', '--bare', gitdir] });
  return gitdir;
}

/** A pack of `blobs` as a publication encodes it, whole in memory. */
async function packOf(blobs: readonly Buffer[]): Promise<PackWithIndex & { oids: string[] }> {
  const store = createObjectStore();
  const oids = blobs.map((blob) => store.add('blob', blob));
  const { pack, idx } = await encodePack({ store });
  const pieces: Buffer[] = [];
  for await (const piece of pack) pieces.push(Buffer.from(piece));
  return { pack: Buffer.concat(pieces), idx, oids };
}

/** The objects `git verify-pack -v` lists in the merged pack, once it is installed in `gitdir`. */
async function verifiedObjects(gitdir: string, merged: ReturnType<typeof mergePacks>): Promise<string[]> {
  await installPack({ gitdir, ...merged });
  const idx = join(gitdir, 'objects', 'pack', `pack-${merged.packSha}.idx`);
  const out = await runGit({ args: ['verify-pack', '-v', idx] });
  return out
    .split('\n')
    .map((line) => line.split(/\s+/)[0]!)
    .filter((oid) => /^[0-9a-f]{40}$/.test(oid));
}

/** `git pack-objects --delta-base-offset` of what `revs` reach (ofs-deltas, as git writes them). */
async function gitPack(gitdir: string, revs: string[]): Promise<PackWithIndex> {
  const objects = await runGit({ args: ['--git-dir', gitdir, 'rev-list', '--objects', ...revs] });
  const dir = await mkdtemp(join(tmpdir(), 'merge-packs-src-'));
  const sha = await runGit({
    args: ['--git-dir', gitdir, 'pack-objects', '-q', '--delta-base-offset', join(dir, 'pack')],
    input: `${objects}\n`,
  });
  return {
    pack: await readFile(join(dir, `pack-${sha}.pack`)),
    idx: await readFile(join(dir, `pack-${sha}.idx`)),
  };
}

describe('merging packs (merge-packs.ts)', () => {
  it('copies a source merged whole as it is: its ofs-deltas keep their distances and their CRC-32s, none computed again', async () => {
    const source = await bareRepository();
    const big = (rev: number) =>
      Array.from({ length: 400 }, (_, i) => `line ${i}: ${i % 50 === rev ? 'changed' : 'same'}\n`).join('');
    const commits = [1, 2, 3, 4].map(
      (rev) =>
        `commit refs/heads/c${rev}\nmark :${rev}\ncommitter c <c@example.invalid> ${1_700_000_000 + rev} +0000\ndata 2\nc${rev}\n${rev > 1 ? `from :${rev - 1}\n` : ''}M 100644 inline big.yaml\ndata ${Buffer.byteLength(big(rev))}\n${big(rev)}\n\n`,
    );
    await runGit({ args: ['--git-dir', source, 'fast-import', '--quiet'], input: commits.join('') });
    // two packs with no object in common, each holding deltas (big.yaml's versions on each other)
    const sources = [await gitPack(source, ['c2']), await gitPack(source, ['c4', '--not', 'c2'])];
    const crc32 = jest.spyOn(zlib, 'crc32');

    const merged = mergePacks(sources);

    expect(crc32).not.toHaveBeenCalled();
    const gitdir = await bareRepository();
    const objects = await verifiedObjects(gitdir, merged);
    expect(objects.length).toBeGreaterThanOrEqual(12);
    const listed = await runGit({
      args: ['verify-pack', '-v', join(gitdir, 'objects', 'pack', `pack-${merged.packSha}.idx`)],
    });
    // deltas were carried as they are (verify-pack counts them by chain length)
    expect(listed).toMatch(/chain length = 1: \d+ objects?/);
  });

  it('places a large pack merged with small ones in runs: a few SHA-1 reads and comparisons per entry, not one per source', async () => {
    // objects in two sources, as a merge killed before it removed its sources leaves them
    const shared = [randomBytes(24), randomBytes(24)];
    const large = await packOf([...Array.from({ length: 3000 }, () => randomBytes(24)), shared[0]!]);
    const smalls = await Promise.all(
      Array.from({ length: 8 }, (_, s) =>
        packOf([...Array.from({ length: 30 }, () => randomBytes(24)), ...(s % 4 === 3 ? shared : [])]),
      ),
    );
    const sources = [large, ...smalls];
    const entries = new Set(sources.flatMap((source) => source.oids)).size;
    // a SHA-1 comparison reads the first four bytes of each side as numbers, or compares the bytes
    const reads = [jest.spyOn(Buffer.prototype, 'readUInt32BE'), jest.spyOn(Buffer.prototype, 'compare')];

    const merged = mergePacks(sources);

    const perEntry = reads.reduce((total, spy) => total + spy.mock.calls.length, 0) / entries;
    for (const spy of reads) spy.mockRestore();
    // each entry: its offset and CRC-32 read from its index, a few comparisons a run, and
    // the small packs' entries each compared with every source (about 8 in all); every entry
    // compared with every source was 27
    expect(perEntry).toBeLessThan(12);
    const gitdir = await bareRepository();
    const objects = await verifiedObjects(gitdir, merged);
    expect(objects.sort()).toEqual([...new Set(sources.flatMap((source) => source.oids))].sort());
    expect(await readdir(join(gitdir, 'objects', 'pack'))).toHaveLength(2);
  });
});
