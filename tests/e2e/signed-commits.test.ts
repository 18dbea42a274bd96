// Signed commits end to end: changes posted over HTTP to the app on the embedded host become
// commits signed with each repository's key (SSH from a variable, OpenPGP from a file, as a
// Kubernetes Secret mounts it), and `git verify-commit` verifies every commit kubescribe made,
// including those replayed after another writer moved the branch and those settled after a lost
// reply. Real `git http-backend` behind a fault proxy; keys made by `ssh-keygen` and `gpg`.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, git, startAppHost } from '../support/app/app-host';
import { commitAsAnotherWriter, configMapEvent, writeTrailers } from '../support/app/branch-observations';
import { runGit } from '../support/git/run-git';
import { newOpenPgpSigningKit, newSshSigningKit, type SigningKit } from '../support/git/signing-keys';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

type Signed = { target: string; kit: SigningKit; served: ProxiedRemote };

let app: AppHost;
let ssh: Signed;
let pgp: Signed;
let keyDir: string;

beforeAll(async () => {
  ssh = { target: 'prod', kit: newSshSigningKit('ed25519'), served: await startProxiedRemote() };
  pgp = { target: 'stage', kit: newOpenPgpSigningKit('ed25519'), served: await startProxiedRemote() };
  // the OpenPGP key as a mounted Secret: a file outside the data folder
  keyDir = mkdtempSync(join(tmpdir(), 'ks-signing-secret-'));
  writeFileSync(join(keyDir, 'signing.asc'), pgp.kit.privateKey, { mode: 0o600 });
  const repository = (name: string, signed: Signed, signing: object) => ({
    name,
    url: signed.served.url,
    committer: signed.kit.committer,
    signing,
  });
  const target = (name: string, repositoryName: string) => ({
    name,
    repository: repositoryName,
    branch: 'main',
    path: `clusters/${name}`,
    window: { idleTimeout: '1s', maxDuration: '5s' },
  });
  app = await startAppHost(
    {
      repositories: [
        repository('ssh-state', ssh, { format: 'ssh', keyEnv: 'KUBESCRIBE_SSH_SIGNING_KEY' }),
        repository('pgp-state', pgp, { format: 'openpgp', keyFile: join(keyDir, 'signing.asc') }),
      ],
      targets: [target('prod', 'ssh-state'), target('stage', 'pgp-state')],
      limits: { gitCallTimeout: '5s', publishTimeout: '30s', pushCooldown: '0s', retry: { initial: '1s' } },
      server: { auth: 'disabled' },
    },
    { KUBESCRIBE_SSH_SIGNING_KEY: ssh.kit.privateKey },
  );
});

afterAll(async () => {
  await app?.stop();
  for (const signed of [ssh, pgp]) {
    await signed?.served.stop();
    signed?.kit.cleanup();
  }
  rmSync(keyDir, { recursive: true, force: true });
});

afterEach(() => {
  ssh.served.proxy.reset();
  pgp.served.proxy.reset();
});

async function publishChange({ target }: Signed, name: string): Promise<void> {
  const response = await app.http('POST', `/api/v1/targets/${target}/events`, {
    events: [configMapEvent(name)],
  });
  expect(response.status).toBe(202);
  await app.advance(5000);
  expect((await app.http('GET', `/api/v1/targets/${target}`)).body.publication).toMatchObject({
    pendingWrites: 0,
  });
}

/** The commits on main whose committer is kubescribe's identity. */
async function kubescribeCommits({ served, kit }: Signed): Promise<string[]> {
  const lines = (await git(served.remote, 'log', '--format=%H %ce', 'main')).trim().split('\n');
  return lines.filter((line) => line.endsWith(` ${kit.committer.email}`)).map((line) => line.split(' ')[0]!);
}

async function expectAllVerified(signed: Signed, atLeast: number): Promise<void> {
  const commits = await kubescribeCommits(signed);
  expect(commits.length).toBeGreaterThanOrEqual(atLeast);
  for (const sha of commits) {
    const result = await signed.kit.verify(signed.served.remote, sha);
    expect({ sha, verified: result.verified }).toEqual({ sha, verified: true });
  }
  const trailers = await writeTrailers(signed.served.remote);
  expect(new Set(trailers).size).toBe(trailers.length);
}

describe.each([
  ['SSH', () => ssh],
  ['OpenPGP', () => pgp],
])('a repository signing with %s', (_format, signedOf) => {
  it('records a window as a commit git verify-commit verifies', async () => {
    const signed = signedOf();
    await publishChange(signed, 'first');
    await expectAllVerified(signed, 1);
  });

  it('signs its writes again when they are replayed on another writer’s commit', async () => {
    const signed = signedOf();
    await publishChange(signed, 'before-them');
    const theirs = await commitAsAnotherWriter(
      signed.served.remote,
      'main',
      { 'docs/a.md': 'a\n' },
      'By a person',
    );
    await publishChange(signed, 'after-them');
    // racing: their commit lands just before our push reaches the server, so ours is rebuilt on it
    let racing = '';
    signed.served.proxy.inject({
      on: 'push',
      fault: {
        kind: 'before',
        run: async () => {
          racing = await commitAsAnotherWriter(
            signed.served.remote,
            'main',
            { 'docs/b.md': 'b\n' },
            'Racing',
          );
        },
      },
    });
    await publishChange(signed, 'raced');
    expect(racing).toMatch(/^[0-9a-f]{40}$/);
    await git(signed.served.remote, 'merge-base', '--is-ancestor', theirs, 'main');
    await git(signed.served.remote, 'merge-base', '--is-ancestor', racing, 'main');
    const tip = (await git(signed.served.remote, 'rev-parse', 'main')).trim();
    expect((await kubescribeCommits(signed))[0]).toBe(tip);
    await expectAllVerified(signed, 3);
  });

  it('settles a push whose reply was lost by the trailer of its signed commit, committing it once', async () => {
    const signed = signedOf();
    // the push lands but its reply is lost; the probe finds another writer's commit on top, so the
    // next attempt must recognise the landed write by its trailer in the signed commit
    signed.served.proxy.inject({ on: 'push', fault: { kind: 'dropReply' } });
    signed.served.proxy.inject({
      on: 'refs',
      fault: {
        kind: 'before',
        run: async () => {
          await commitAsAnotherWriter(
            signed.served.remote,
            'main',
            { 'docs/c.md': 'c\n' },
            'After the lost reply',
          );
        },
      },
    });
    await publishChange(signed, 'lost-reply');
    const faults = signed.served.proxy.requests.map((request) => request.fault);
    expect(faults).toEqual(expect.arrayContaining(['dropReply', 'before']));
    // their commit is the tip and ours, found by its trailer, is below it: nothing was committed again
    const [tip, below] = (await git(signed.served.remote, 'log', '-2', '--format=%s', 'main'))
      .trim()
      .split('\n');
    expect(tip).toBe('After the lost reply');
    expect(below).not.toBe('After the lost reply');
    const touching = await git(
      signed.served.remote,
      'log',
      '--format=%H',
      'main',
      '--',
      `clusters/${signed.target}/shop/configmaps/lost-reply.yaml`,
    );
    expect(touching.trim().split('\n')).toHaveLength(1);
    await expectAllVerified(signed, 1);
  });

  it('fails git verify-commit for its commit once the commit is altered under its signature', async () => {
    const signed = signedOf();
    await publishChange(signed, 'to-alter');
    const [sha] = await kubescribeCommits(signed);
    const raw = await git(signed.served.remote, 'cat-file', 'commit', sha!);
    const altered = raw.replace(/^committer kubescribe/m, 'committer mallory');
    expect(altered).not.toBe(raw);
    const forged = await runGit({
      args: ['--git-dir', signed.served.remote, 'hash-object', '-t', 'commit', '-w', '--stdin'],
      input: altered,
    });
    expect((await signed.kit.verify(signed.served.remote, sha!)).verified).toBe(true);
    expect((await signed.kit.verify(signed.served.remote, forged)).verified).toBe(false);
  });
});

it('wrote no line of either signing key to the data folder, the Git objects or the logs', async () => {
  // signed commits of both kinds exist whether or not the tests above ran
  await publishChange(ssh, 'scanned');
  await publishChange(pgp, 'scanned');
  const blobs: Buffer[] = [];
  const scanned: string[] = [];
  const visit = (path: string) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) visit(child);
      else {
        scanned.push(child);
        blobs.push(readFileSync(child));
      }
    }
  };
  visit(app.dataDir);
  for (const { served } of [ssh, pgp]) {
    blobs.push(
      execFileSync('git', ['--git-dir', served.remote, 'cat-file', '--batch-all-objects', '--batch'], {
        maxBuffer: 256 * 1024 * 1024,
      }),
    );
  }
  blobs.push(Buffer.from(JSON.stringify(app.logs)));
  expect(scanned.some((path) => path.endsWith('host.sqlite'))).toBe(true);
  expect(scanned.some((path) => path.includes('git-cache'))).toBe(true);
  expect(blobs.some((bytes) => bytes.includes('-----BEGIN SSH SIGNATURE-----'))).toBe(true);
  expect(blobs.some((bytes) => bytes.includes('-----BEGIN PGP SIGNATURE-----'))).toBe(true);
  const fragments = [...ssh.kit.secretFragments, ...pgp.kit.secretFragments];
  expect(fragments.length).toBeGreaterThan(8);
  for (const fragment of fragments) expect(blobs.filter((bytes) => bytes.includes(fragment)).length).toBe(0);
});
