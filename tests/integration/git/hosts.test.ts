/**
 * The executor against each Git host's documented behaviour, emulated by the fault proxy's host
 * modes in front of a real `git http-backend` (see `GitHostMode` in start-fault-proxy.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { publish } from '../../../shared/git/publish';
import { readBranchHead } from '../../../shared/git/read-branch-head';
import type { Clock } from '../../../shared/git/types';
import { aWrite } from '../../support/git/a-write';
import { runGit } from '../../support/git/run-git';
import type { GitHostMode } from '../../support/git/start-fault-proxy';
import { fsck, type GitWorld, logOf, PULL_REFS, startGitWorld } from './git-fixture';
import { otherWriter } from './other-writer';

// where another writer's git CLI push runs inside one of our calls, give the calls room for it
const roomy = { callTimeoutMs: 20_000 };
const subjects = async (gitdir: string) => (await logOf(gitdir)).map((line) => line.slice(41));

const modes: GitHostMode[] = ['http-backend', 'azure-repos', 'github', 'gitlab', 'current-git'];

describe.each(modes)('a %s host', (host) => {
  let world: GitWorld;
  beforeAll(async () => {
    world = await startGitWorld({ host });
  });
  afterEach(() => world.proxy.reset());
  afterAll(() => world.stop());

  const writerOn = (gitdir: string) =>
    otherWriter({ url: `${world.serverUrl}/${gitdir.split('/').pop()}`, root: world.root });

  it('publishes from a cold cache, then from the warm one', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();

    const first = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir,
    });
    const second = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'c.yaml': 'c\n' } })],
      cacheDir,
    });

    expect(first).toMatchObject({ kind: 'published', attempts: 1 });
    expect(second).toMatchObject({ kind: 'published', attempts: 1 });
    expect(await subjects(gitdir)).toEqual([
      expect.stringMatching(/^write/),
      expect.stringMatching(/^write/),
      'seed',
    ]);
    await fsck(gitdir);
  });

  it('replays on the head another writer pushed while we built, whatever the host calls the lost race', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const pushOne = await writerOn(gitdir);
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

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'mine', files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      ...roomy,
    });

    expect(result).toMatchObject({ kind: 'published', attempts: 2 });
    expect(await subjects(gitdir)).toEqual(['write mine', 'other writer 1', 'seed']);
    await runGit({ args: ['--git-dir', gitdir, 'merge-base', '--is-ancestor', theirs, 'main'] });
  });

  it('drops a warm cache tip another writer left behind (even rewritten away) and lands on the new head', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const first = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'first', files: { 'b.yaml': 'b\n' } })],
      cacheDir,
    });
    const pushOne = await writerOn(gitdir);
    await pushOne({ rewrite: true });

    const results = [];
    for (const id of ['second', 'third']) {
      results.push(
        await publish({
          remote: { kind: 'http', url },
          branch: 'main',
          writes: [aWrite({ id, files: { [`${id}.yaml`]: `${id}\n` } })],
          cacheDir,
          maxAttempts: 1,
        }),
      );
    }

    expect(first).toMatchObject({ kind: 'published' });
    expect(results).toEqual([
      expect.objectContaining({ kind: 'published', attempts: 1 }),
      expect.objectContaining({ kind: 'published', attempts: 1 }),
    ]);
    expect(await subjects(gitdir)).toEqual(['write third', 'write second', 'other writer 1', 'seed']);
  });

  it('settles a push whose reply was lost by finding our head on the remote', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'push', fault: { kind: 'dropReply' } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'lost', files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      ...roomy,
    });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: true });
    expect(await subjects(gitdir)).toEqual(['write lost', 'seed']);
  });

  it('reports an outage as transient with the server message, and a Retry-After past the bound as the hint', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({
      on: 'refs',
      fault: {
        kind: 'status',
        status: 503,
        headers: { 'retry-after': '3600' },
        body: 'down for maintenance',
      },
    });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({
      kind: 'transient',
      step: 'advertise',
      cause: 'HTTP 503 Service Unavailable: down for maintenance',
      retryAfterMs: 3_600_000,
    });
    expect(await subjects(gitdir)).toEqual(['seed']);
  });
});

describe('Azure Repos', () => {
  let world: GitWorld;
  const TOKEN = 'azdo-s3cret-pat-value';
  beforeAll(async () => {
    world = await startGitWorld({ host: 'azure-repos', auth: { basic: ['pat', TOKEN] } });
  });
  afterAll(() => world.stop());

  it('reports a bad token, answered with a 203 sign-in page, as authFailed', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });

    const result = await publish({
      remote: { kind: 'http', url, auth: { username: 'pat', token: 'wrong-token' } },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({ kind: 'authFailed', cause: 'the remote refused the credentials (HTTP 203)' });
  });

  it('publishes with a good token, over protocol v0 and a multi_ack_detailed fetch', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url, auth: { username: 'pat', token: TOKEN } },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    // Git-Protocol is dropped: the v0 advertisement lists the refs, so no ls-refs POST follows
    expect(world.proxy.requests.slice(seen).map((r) => r.kind)).toEqual(['refs', 'fetch', 'push']);
    expect(await logOf(gitdir)).toHaveLength(2);
  });
});

describe('GitHub', () => {
  let world: GitWorld;
  beforeAll(async () => {
    world = await startGitWorld({ host: 'github' });
  });
  afterEach(() => world.proxy.reset());
  afterAll(() => world.stop());

  it(`lists only branches, not its ${PULL_REFS} pull request refs`, async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = world.proxy.requests.length;

    const head = await readBranchHead({ remote: { kind: 'http', url }, branch: 'main' });

    expect(head).toMatchObject({ kind: 'found', defaultBranch: 'main' });
    const listing = world.proxy.requests.slice(seen).find((r) => r.kind === 'ls-refs');
    // one line per pull request ref would be ~60 bytes each
    expect(listing?.replyBytes).toBeLessThan(500);
  });

  it('waits out a 429 Retry-After that fits in the publication bound, then publishes', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({
      on: 'refs',
      fault: { kind: 'status', status: 429, headers: { 'retry-after': '7' }, body: 'secondary rate limit' },
    });
    const waits: number[] = [];
    // the 7 s wait happens at once; every bound stays a real timer
    const clock: Clock = {
      now: () => Date.now(),
      setTimeout: (fn, ms) => {
        if (ms !== 7_000) return setTimeout(fn, ms);
        waits.push(ms);
        return setImmediate(fn);
      },
      clearTimeout: (handle) => {
        clearTimeout(handle as NodeJS.Timeout);
        clearImmediate(handle as NodeJS.Immediate);
      },
    };

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      clock,
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect(waits).toEqual([7_000]);
    expect(await logOf(gitdir)).toHaveLength(2);
  });
});

describe('GitLab', () => {
  let world: GitWorld;
  beforeAll(async () => {
    world = await startGitWorld({ host: 'gitlab' });
  });
  afterAll(() => world.stop());

  it('follows the redirect of a URL without .git and sends its POSTs to the .git URL', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect(world.proxy.requests.slice(seen).map((r) => `${r.kind} ${r.path.replace(/^\/r\d+/, '')}`)).toEqual(
      [
        'refs /info/refs',
        'refs .git/info/refs',
        'ls-refs .git/git-upload-pack',
        'fetch .git/git-upload-pack',
        'push .git/git-receive-pack',
      ],
    );
  });
});

describe('GitLab with a project access token', () => {
  const TOKEN = 'glpat-s3cret-value';
  let world: GitWorld;
  beforeAll(async () => {
    world = await startGitWorld({
      host: 'gitlab',
      authorize: (header) => header === `Basic ${Buffer.from(`oauth2:${TOKEN}`).toString('base64')}`,
    });
  });
  afterAll(() => world.stop());

  it('publishes as oauth2, keeping the token across the same-host .git redirect', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url, auth: { username: 'oauth2', token: TOKEN } },
      branch: 'main',
      writes: [aWrite({ id: 'gl', files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    const reached = world.proxy.requests.slice(seen);
    expect(reached.map((r) => r.path.endsWith('.git/git-receive-pack') && r.authorized)).toContain(true);
    expect(reached.every((r) => r.authorized && !r.credentialsRefused)).toBe(true);
    expect(await subjects(gitdir)).toEqual(['write gl', 'seed']);
  });

  it('reports a push rule refusal as rejected with GitLab’s message, without a retry', async () => {
    const { url, gitdir } = await world.repo({
      files: { 'a.yaml': 'a\n' },
      preReceive: `echo "GitLab: Commit message does not follow the pattern '^(feat|fix):'" >&2; exit 1`,
    });

    const result = await publish({
      remote: { kind: 'http', url, auth: { username: 'oauth2', token: TOKEN } },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({
      kind: 'rejected',
      cause: expect.stringContaining('GitLab: Commit message does not follow the pattern'),
    });
    const name = gitdir
      .split('/')
      .pop()!
      .replace(/\.git$/, '');
    expect(world.proxy.requests.filter((r) => r.kind === 'push' && r.path.includes(name))).toHaveLength(1);
    expect(await subjects(gitdir)).toEqual(['seed']);
  });
});

describe('HTTP answers of any host', () => {
  let world: GitWorld;
  beforeAll(async () => {
    world = await startGitWorld();
  });
  afterEach(() => world.proxy.reset());
  afterAll(() => world.stop());

  it('never sends the credentials to another host a redirect names', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const elsewhere = http.createServer((req, res) => {
      res.writeHead(302, { location: `${url}${req.url!.replace(/^\/moved/, '')}` });
      res.end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const seen = world.proxy.requests.length;

    const head = await readBranchHead({
      remote: {
        kind: 'http',
        url: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/moved`,
        auth: { bearer: 'tok3n-for-the-first-host' },
      },
      branch: 'main',
    });
    elsewhere.close();

    expect(head).toMatchObject({ kind: 'found' });
    const reached = world.proxy.requests.slice(seen);
    expect(reached.length).toBeGreaterThan(0);
    expect(reached.every((r) => !r.authorized)).toBe(true);
  });

  it.each([
    [400, 'malformed request'],
    [413, 'pack exceeds maximum allowed size'],
  ])('reports a push answered %i as rejected, keeping what the server said', async (status, said) => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'push', fault: { kind: 'status', status, body: said } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({
      kind: 'rejected',
      cause: expect.stringMatching(new RegExp(`^HTTP ${status} .*: ${said}$`)),
    });
  });

  it('refuses a SHA-256 repository permanently, saying why', async () => {
    await runGit({ args: ['init', '-q', '--bare', '--object-format=sha256', `${world.root}/sha256.git`] });

    const result = await publish({
      remote: { kind: 'http', url: `${world.proxy.url}/sha256.git` },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({ kind: 'rejected', cause: expect.stringContaining('sha256 object names') });
  });
});
