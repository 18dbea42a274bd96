import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { runGit } from '../../support/git/run-git';
import type { Fault, GitRequestKind } from '../../support/git/start-fault-proxy';
import { fsck, type GitWorld, logOf, startGitWorld } from './git-fixture';
import { otherWriter } from './other-writer';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterEach(() => world.proxy.reset());
afterAll(() => world.stop());

// A stalled call must hit its bound while a busy machine's ordinary calls stay well inside it.
const bounds = { callTimeoutMs: 1_500, publishTimeoutMs: 10_000 };
// Where a test is not about time, bounds that a loaded machine never reaches.
const calm = { callTimeoutMs: 20_000, publishTimeoutMs: 60_000 };
// where another writer's git CLI push runs inside one of our calls, give the calls room for it
const roomy = { callTimeoutMs: 20_000 };

async function eventually(check: () => boolean, withinMs = 2_000): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < withinMs; await new Promise((r) => setTimeout(r, 20))) {
    if (check()) return true;
  }
  return check();
}

describe('a remote that stalls', () => {
  // cold cache: advertise = GET info/refs + POST ls-refs; fetch = POST upload-pack; push = POST receive-pack
  const stalls: [string, { on: GitRequestKind; skip?: number; fault: Fault }, string][] = [
    ['the ref advertisement', { on: 'refs', fault: { kind: 'stall' } }, 'advertise'],
    ['the ls-refs answer', { on: 'ls-refs', fault: { kind: 'stallBody' } }, 'advertise'],
    ['the fetch request', { on: 'fetch', fault: { kind: 'stall' } }, 'fetch'],
    ['the middle of the fetched pack', { on: 'fetch', fault: { kind: 'stallBody' } }, 'fetch'],
    ['the push', { on: 'push', fault: { kind: 'stall' } }, 'push'],
  ];
  it.each(stalls)(
    'at %s returns a timeout within the bound, closes the socket, and a retry publishes',
    async (_, rule, step) => {
      const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
      const cacheDir = await world.cacheDir();
      const write = aWrite({ files: { 'b.yaml': 'b\n' } });
      world.proxy.inject(rule);

      const started = Date.now();
      const result = await publish({
        remote: { kind: 'http', url },
        branch: 'main',
        writes: [write],
        cacheDir,
        ...bounds,
      });
      const elapsed = Date.now() - started;

      expect(result).toEqual({ kind: 'timeout', step, afterMs: bounds.callTimeoutMs });
      expect(elapsed).toBeLessThan(bounds.publishTimeoutMs);
      expect(await eventually(() => world.proxy.heldOpen() === 0)).toBe(true);
      const retry = await publish({
        remote: { kind: 'http', url },
        branch: 'main',
        writes: [write],
        cacheDir,
        ...calm,
      });
      expect(retry).toMatchObject({ kind: 'published' });
      expect(await logOf(gitdir)).toHaveLength(2);
      await fsck(gitdir);
    },
  );

  it('bounds the whole publication even when every call stays under its own bound', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    // a cold cache lists the refs, then fetches: each call waits 250 ms, under its own 1 s bound,
    // and together they pass the publication's 300 ms, however fast the rest of it runs
    world.proxy.inject({ on: 'refs', fault: { kind: 'delay', ms: 250 } });
    world.proxy.inject({ on: 'fetch', fault: { kind: 'delay', ms: 250 } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      callTimeoutMs: 1_000,
      publishTimeoutMs: 300,
    });

    expect(result).toEqual({ kind: 'timeout', step: 'publication', afterMs: 300 });
  });

  it('reports the publication bound, without a probe, when it expires during a stalled push', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'push', fault: { kind: 'stall' } });
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      callTimeoutMs: 20_000,
      publishTimeoutMs: 3_000,
    });

    expect(result).toEqual({ kind: 'timeout', step: 'publication', afterMs: 3_000 });
    expect(world.proxy.requests.slice(seen).at(-1)?.kind).toBe('push');
  });

  it('stops at once, as transient, when the caller cancels', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'refs', fault: { kind: 'stall' } });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      callTimeoutMs: 10_000,
      signal: caller.signal,
    });

    expect(result).toMatchObject({ kind: 'transient', step: 'advertise' });
    expect(await eventually(() => world.proxy.heldOpen() === 0)).toBe(true);
  });

  it('arms its bounds through the injected clock', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'refs', fault: { kind: 'stall' } });
    const timers = new Map<number, () => void>();
    let last = 0;
    const clock = {
      now: () => 0,
      setTimeout: (fn: () => void) => {
        timers.set(++last, fn);
        return last;
      },
      clearTimeout: (handle: unknown) => void timers.delete(handle as number),
    };
    const seen = world.proxy.requests.length;

    const pending = publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      clock,
    });
    expect(await eventually(() => world.proxy.requests.length > seen)).toBe(true);
    timers.get(Math.max(...timers.keys()))!(); // the advertisement's own bound expires

    expect(await pending).toEqual({ kind: 'timeout', step: 'advertise', afterMs: 120_000 });
    expect(timers.size).toBe(0);
  });
});

describe('a remote that fails', () => {
  it('reports a 5xx on the advertisement as transient', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'refs', fault: { kind: 'status', status: 503 } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      ...calm,
    });

    expect(result).toMatchObject({
      kind: 'transient',
      step: 'advertise',
      cause: expect.stringContaining('503'),
    });
  });

  it('reports a refused push that did not land as transient, after checking the remote', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'push', fault: { kind: 'refuse' } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      ...calm,
    });

    expect(result).toMatchObject({ kind: 'transient', step: 'push' });
    expect(world.proxy.requests.at(-1)?.kind).toBe('ls-refs');
    expect(await logOf(gitdir)).toHaveLength(1);
  });

  it('settles a lost reply as published when the remote shows our head', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'push', fault: { kind: 'dropReply' } });
    const writes = [
      aWrite({ id: 'lost-1', files: { 'b.yaml': 'b\n' } }),
      aWrite({ id: 'lost-2', empty: true }),
    ];

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes,
      cacheDir: await world.cacheDir(),
      ...calm,
    });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: true });
    if (result.kind !== 'published') return;
    expect(await logOf(gitdir)).toEqual([
      `${result.commits['lost-2']} write lost-2`,
      `${result.commits['lost-1']} write lost-1`,
      expect.stringMatching(/ seed$/),
    ]);
  });

  it('settles a lost reply by the write trailers when another writer pushed on top meanwhile', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const pushOne = await otherWriter({
      url: `${world.serverUrl}/${gitdir.split('/').pop()}`,
      root: world.root,
    });
    world.proxy.inject({ on: 'push', fault: { kind: 'dropReply' } });
    world.proxy.inject({
      on: 'ls-refs',
      skip: 1,
      fault: { kind: 'before', run: async () => void (await pushOne()) },
    });
    const writes = [aWrite({ id: 'ours', files: { 'b.yaml': 'b\n' } }), aWrite({ id: 'save', empty: true })];

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes,
      cacheDir: await world.cacheDir(),
      ...roomy,
    });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: true });
    const log = await logOf(gitdir);
    expect(log.map((line) => line.slice(41))).toEqual(['other writer 1', 'write save', 'write ours', 'seed']);
    if (result.kind === 'published') expect(log[1]).toBe(`${result.commits.save} write save`);
  });

  it('does not duplicate writes whose publication landed but was never recorded', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const writes = [
      aWrite({ id: 'once', files: { 'b.yaml': 'b\n' } }),
      aWrite({ id: 'once-save', empty: true }),
    ];
    const first = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes,
      cacheDir: await world.cacheDir(),
      ...calm,
    });

    const again = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes,
      cacheDir: await world.cacheDir(),
      ...calm,
    });

    expect(first).toMatchObject({ kind: 'published', settledByRemoteEvidence: false });
    expect(again).toMatchObject({ kind: 'published', settledByRemoteEvidence: true });
    if (first.kind === 'published' && again.kind === 'published')
      expect(again.commits).toEqual(first.commits);
    expect(await logOf(gitdir)).toHaveLength(3);
  });

  it('surfaces the pre-receive hook message as a rejection and does not retry', async () => {
    const { url, gitdir } = await world.repo({
      files: { 'a.yaml': 'a\n' },
      preReceive: 'echo "GH006: Protected branch update failed for refs/heads/main." >&2; exit 1',
    });

    const cacheDir = await world.cacheDir();
    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir,
      ...calm,
    });

    expect(result).toEqual({
      kind: 'rejected',
      cause: expect.stringContaining('GH006: Protected branch update failed'),
    });
    // the pack written into the cache while the server took it is taken out again: the fetched one stays
    const [cached] = await readdir(cacheDir);
    expect(
      (await readdir(join(cacheDir, cached!, 'objects', 'pack'))).filter((n) => n.endsWith('.pack')),
    ).toHaveLength(1);
    expect(result).toEqual({ kind: 'rejected', cause: expect.stringContaining('pre-receive hook declined') });
    expect(
      world.proxy.requests.filter((r) => r.kind === 'push' && r.path.includes(gitdir.split('/').pop()!)),
    ).toHaveLength(1);
  });
});

describe('a remote another writer moves', () => {
  it("replays our writes on the other writer's head and keeps its commits", async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const pushOne = await otherWriter({
      url: `${world.serverUrl}/${gitdir.split('/').pop()}`,
      root: world.root,
    });
    let theirs = '';
    world.proxy.inject({
      on: 'push',
      fault: {
        kind: 'before',
        run: async () => {
          theirs = await pushOne();
        },
      },
    });
    const writes = [
      aWrite({ id: 'mine', files: { 'b.yaml': 'b\n' } }),
      aWrite({ id: 'noop', files: { 'a.yaml': 'a\n' } }),
    ];

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes,
      cacheDir: await world.cacheDir(),
      ...roomy,
    });

    expect(result).toMatchObject({ kind: 'published', attempts: 2, commits: { noop: null } });
    const log = await logOf(gitdir);
    expect(log.map((line) => line.slice(41))).toEqual(['write mine', 'other writer 1', 'seed']);
    expect(log[1]).toBe(`${theirs} other writer 1`);
    await runGit({ args: ['--git-dir', gitdir, 'merge-base', '--is-ancestor', theirs, 'main'] });
    await fsck(gitdir);
  });

  it('gives up with remoteMoved after the attempts are exhausted, leaving the remote as the other writer left it', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const pushOne = await otherWriter({
      url: `${world.serverUrl}/${gitdir.split('/').pop()}`,
      root: world.root,
    });
    world.proxy.inject({
      on: 'push',
      times: 2,
      fault: { kind: 'before', run: async () => void (await pushOne()) },
    });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      ...roomy,
      maxAttempts: 2,
    });

    expect(result).toMatchObject({ kind: 'remoteMoved', attempts: 2 });
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual([
      'other writer 2',
      'other writer 1',
      'seed',
    ]);
  });

  it('advertises again when the branch is rewritten between its ref listing and its fetch', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const pushOne = await otherWriter({
      url: `${world.serverUrl}/${gitdir.split('/').pop()}`,
      root: world.root,
    });
    world.proxy.inject({
      on: 'fetch',
      fault: {
        kind: 'before',
        run: async () => {
          await pushOne({ rewrite: true });
        },
      },
    });
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      ...roomy,
    });

    expect(result).toMatchObject({ kind: 'published', attempts: 2 });
    // the server refuses the vanished tip ("not our ref"): a new listing follows, no push is wasted on it
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual([
      'refs',
      'ls-refs',
      'fetch',
      'refs',
      'ls-refs',
      'fetch',
      'push',
    ]);
    expect((await logOf(gitdir)).map((line) => line.slice(41))).toEqual([
      expect.stringMatching(/^write/),
      'other writer 1',
    ]);
  });
});
