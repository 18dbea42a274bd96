import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { compactAfterPublication, compactObjectCache } from '../../../shared/git/compact-object-cache';
import { encodePack } from '../../../shared/git/encode-pack';
import { installPack } from '../../../shared/git/install-pack';
import { createObjectStore } from '../../../shared/git/object-store';
import { openObjectCache } from '../../../shared/git/open-object-cache';
import { runGit } from '../../support/git/run-git';

// A steady stream adds a small pack to its branch's object cache every window, and the cache merges
// them (compact-object-cache.ts) on the publication's path. These hold what a merge may cost (a
// copy: nothing inflated or deflated) and how many packs a long stream leaves, by counts and bytes.

afterEach(() => jest.restoreAllMocks());

async function bareRepository(): Promise<string> {
  const gitdir = join(await mkdtemp(join(tmpdir(), 'compact-object-cache-')), 'c.git');
  await runGit({ args: ['init', '-q', '--bare', gitdir] });
  return gitdir;
}

const packDir = (gitdir: string) => join(gitdir, 'objects', 'pack');

async function packsOf(gitdir: string): Promise<{ name: string; size: number }[]> {
  const names = (await readdir(packDir(gitdir))).filter((name) => name.endsWith('.pack'));
  return Promise.all(
    names.map(async (name) => ({ name, size: (await stat(join(packDir(gitdir), name))).size })),
  );
}

/**
 * Each object of a pack with its delta base if it is stored as a delta, from `git verify-pack -v`
 * (lines "sha type size size-in-pack offset [depth base-sha]"; verify-pack inflates and hashes
 * every entry and checks every CRC-32 and both checksums, so it also proves the pack whole).
 */
async function entriesOf(idx: string): Promise<Map<string, string | null>> {
  const out = await runGit({ args: ['verify-pack', '-v', idx] });
  const entries = new Map<string, string | null>();
  for (const line of out.split('\n')) {
    const fields = line.split(/\s+/);
    if (!/^[0-9a-f]{40}$/.test(fields[0] ?? '') || fields.length < 5) continue;
    entries.set(fields[0]!, fields[6] ?? null);
  }
  return entries;
}

/** A history whose versions of one large file git stores as deltas of each other. */
async function historyWithDeltas(gitdir: string): Promise<string[]> {
  const big = (rev: number) =>
    Array.from({ length: 400 }, (_, i) => `line ${i}: ${i % 50 === rev ? 'changed' : 'same'}\n`).join('');
  const revs = [1, 2, 3, 4, 5, 6];
  const commits = revs.map(
    (rev) =>
      `commit refs/heads/c${rev}\nmark :${rev}\ncommitter c <c@example.invalid> ${1_700_000_000 + rev} +0000\ndata 2\nc${rev}\n${rev > 1 ? `from :${rev - 1}\n` : ''}M 100644 inline big.yaml\ndata ${Buffer.byteLength(big(rev))}\n${big(rev)}\nM 100644 inline f${rev}.yaml\ndata 2\n${rev}\n\n`,
  );
  await runGit({ args: ['--git-dir', gitdir, 'fast-import', '--quiet'], input: commits.join('') });
  return Promise.all(revs.map((rev) => runGit({ args: ['--git-dir', gitdir, 'rev-parse', `c${rev}`] })));
}

/** `git pack-objects` of the objects `revs` reach, into the cache's pack folder; returns the pack's name. */
async function gitPack(gitdir: string, revs: string, offsets: boolean): Promise<string> {
  const objects = await runGit({ args: ['--git-dir', gitdir, 'rev-list', '--objects', ...revs.split(' ')] });
  const sha = await runGit({
    args: [
      '--git-dir',
      gitdir,
      'pack-objects',
      '-q',
      // without it pack-objects writes ref-deltas (git-pack-objects(1), --delta-base-offset)
      ...(offsets ? ['--delta-base-offset'] : []),
      join(packDir(gitdir), 'pack'),
    ],
    input: `${objects}\n`,
  });
  return `pack-${sha}`;
}

describe('merging the packs of an object cache', () => {
  it('copies every entry as it is: deltas stay deltas on the same bases, nothing is inflated or deflated', async () => {
    const gitdir = await bareRepository();
    const [, c2, , c4, , c6] = await historyWithDeltas(gitdir);
    // three packs as a cache holds them: two that overlap (the same objects twice, as a merge killed
    // before it removed its sources leaves them), one with ref-deltas, all with deltas in them
    const sources = [
      await gitPack(gitdir, c2!, true),
      await gitPack(gitdir, `${c4} --not ${c2}`, false),
      await gitPack(gitdir, c6!, true),
    ];
    await runGit({ args: ['--git-dir', gitdir, 'prune-packed'] });
    const before = new Map<string, string | null>();
    for (const name of sources) {
      for (const [oid, base] of await entriesOf(join(packDir(gitdir), `${name}.idx`)))
        if (!before.has(oid)) before.set(oid, base);
    }
    expect([...before.values()].filter((base) => base !== null).length).toBeGreaterThanOrEqual(3);
    // the ways node's zlib inflates or deflates (pack-inflater.ts drives an Inflate's handle)
    const zlibCalls = [
      ...(['inflateSync', 'deflateSync', 'inflate', 'deflate'] as const).map((name) =>
        jest.spyOn(zlib, name),
      ),
      ...(['Inflate', 'Deflate'] as const).map((name) => jest.spyOn(zlib, name)),
    ];

    const merged = await compactObjectCache({ gitdir, maxPacks: 1 });

    expect(merged).toBe(3);
    expect(zlibCalls.map((spy) => spy.mock.calls.length)).toEqual(zlibCalls.map(() => 0));
    const [pack, ...others] = await packsOf(gitdir);
    expect(others).toEqual([]);
    // the first copy of each object, stored as it was: the same delta base, or whole
    expect(await entriesOf(join(packDir(gitdir), pack!.name.replace(/\.pack$/, '.idx')))).toEqual(before);
    await runGit({ args: ['--git-dir', gitdir, 'fsck', '--strict', '--no-dangling'] });
  });

  it('merges after the publication has returned, and the next opening of the cache waits for the merge', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'compact-object-cache-'));
    const remote = 'https://git.example.invalid/r.git';
    const cache = { cacheDir, key: `${remote}\nmain`, url: remote };
    const gitdir = await openObjectCache(cache);
    for (let round = 0; round < 10; round++) {
      const store = createObjectStore();
      store.add('blob', Buffer.from(`window ${round}\n`));
      await installPack({ gitdir, ...(await encodePack({ store })) });
    }
    // the merge is held where it reads its first pack, and the opening's first look at the cache counted
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const readFile = fs.promises.readFile;
    jest.spyOn(fs.promises, 'readFile').mockImplementation(async (...args: Parameters<typeof readFile>) => {
      if (String(args[0]).endsWith('.pack')) await held;
      return readFile(...args);
    });
    const stat = fs.promises.stat;
    const looks = jest
      .spyOn(fs.promises, 'stat')
      .mockImplementation((...args: Parameters<typeof stat>) => stat(...args));

    compactAfterPublication(gitdir);
    const atReturn = fs.readdirSync(packDir(gitdir)).filter((name) => name.endsWith('.pack')).length;
    const opening = openObjectCache(cache);
    const looksWhileMerging = looks.mock.calls.length;
    release();
    await opening;

    expect(atReturn).toBe(10);
    expect(looksWhileMerging).toBe(0);
    expect((await packsOf(gitdir)).length).toBeLessThan(10);
    await runGit({ args: ['--git-dir', gitdir, 'fsck', '--strict', '--no-dangling'] });
  });

  it('looks at no pack while the cache holds at most maxPacks: every publication calls it, a merge is rare', async () => {
    const gitdir = await bareRepository();
    for (let round = 0; round < 3; round++) {
      const store = createObjectStore();
      store.add('blob', Buffer.from(`window ${round}\n`));
      await installPack({ gitdir, ...(await encodePack({ store })) });
    }
    const looks = [jest.spyOn(fs.promises, 'stat'), jest.spyOn(fs.promises, 'readFile')];

    expect(await compactObjectCache({ gitdir, maxPacks: 3 })).toBe(0);

    expect(looks.map((spy) => spy.mock.calls.length)).toEqual([0, 0]);
    expect(await packsOf(gitdir)).toHaveLength(3);
  });

  it('merges nothing when a source does not read back whole: no damaged entry is carried into a pack with a valid checksum', async () => {
    const gitdir = await bareRepository();
    const [, c2, c3] = await historyWithDeltas(gitdir);
    const damaged = join(packDir(gitdir), `${await gitPack(gitdir, c2!, true)}.pack`);
    await gitPack(gitdir, c3!, true);
    const bytes = await readFile(damaged);
    bytes[20] = bytes[20]! ^ 0xff;
    await writeFile(damaged, bytes);
    const before = await packsOf(gitdir);

    expect(await compactObjectCache({ gitdir, maxPacks: 1 })).toBe(0);
    expect(await packsOf(gitdir)).toEqual(before);
  });

  it('keeps a long stream to a few packs, each byte copied a few times, by merging as git repack --geometric does', async () => {
    const gitdir = await bareRepository();
    const rounds = 80;
    let published = 0;
    let copied = 0;
    const blobs: string[] = [];
    for (let round = 0; round < rounds; round++) {
      // a window's pack: 128 KiB that does not deflate, so nine of them pass the 1 MiB a small pack
      // was below when merges re-deflated every object (and then never merged it again)
      const store = createObjectStore();
      const blob = store.add('blob', randomBytes(128 * 1024));
      const tree = store.add('tree', Buffer.concat([Buffer.from('100644 f\0'), Buffer.from(blob, 'hex')]));
      store.add(
        'commit',
        Buffer.from(`tree ${tree}\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\n\n${round}\n`),
      );
      blobs.push(blob);
      const encoded = await encodePack({ store });
      await installPack({ gitdir, ...encoded });
      const installed = `pack-${encoded.packSha}.pack`;
      published += (await stat(join(packDir(gitdir), installed))).size;
      const held = new Set((await packsOf(gitdir)).map((p) => p.name));

      await compactObjectCache({ gitdir });

      const packs = await packsOf(gitdir);
      copied += packs.filter((p) => !held.has(p.name)).reduce((total, p) => total + p.size, 0);
      const total = packs.reduce((sum, p) => sum + p.size, 0);
      const smallest = Math.min(...packs.map((p) => p.size));
      // up to 8 packs, and past 8 each pack at least twice the next smaller (10 MB in packs of 130
      // KB: 7); merges that left their result alone grew a pack every nine rounds
      expect(packs.length).toBeLessThanOrEqual(Math.max(8, 1 + Math.floor(Math.log2(total / smallest))));
    }
    expect(copied).toBeLessThanOrEqual(Math.log2(rounds) * published);
    const found = await runGit({
      args: ['--git-dir', gitdir, 'cat-file', '--batch-check=%(objectname) %(objecttype)'],
      input: `${blobs.join('\n')}\n`,
    });
    expect(found.split('\n')).toEqual(blobs.map((oid) => `${oid} blob`));
  });
});
