/**
 * Tokens that expire: a GitHub App's installation tokens and Entra ID tokens for Azure Repos, each
 * obtained at the HTTP level from a fake token endpoint, kept until shortly before they expire (on
 * an injected clock) and replaced when the host stops accepting one: the refused call is sent once
 * more and the push lands.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { azureDevOpsCredentials } from '../../../shared/git/azure-devops-credentials';
import { githubAppCredentials } from '../../../shared/git/github-app-credentials';
import { publish } from '../../../shared/git/publish';
import type { Clock } from '../../../shared/git/types';
import { aWrite } from '../../support/git/a-write';
import { type GitHubAppApi, startGitHubAppApi } from '../../support/git/start-github-app-api';
import { type GitWorld, logOf, startGitWorld } from './git-fixture';

const MINUTE = 60_000;
let now = Date.parse('2026-12-01T10:00:00Z');
// the bounds stay real timers; only "now" is moved by the tests
const clock: Clock = {
  now: () => now,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
const subjects = async (gitdir: string) => (await logOf(gitdir)).map((line) => line.slice(41));

describe('a GitHub App installation token', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let api: GitHubAppApi;
  let world: GitWorld;
  beforeAll(async () => {
    api = await startGitHubAppApi({ appId: '4242', installationId: '777', publicKey, now: () => now });
    world = await startGitWorld({
      host: 'github',
      authorize: (header) => {
        const [user, token] = Buffer.from(header?.replace(/^Basic /, '') ?? '', 'base64')
          .toString()
          .split(':');
        return user === 'x-access-token' && token !== undefined && api.accepts(token);
      },
    });
  });
  afterEach(() => world.proxy.reset());
  afterAll(async () => {
    await world.stop();
    await api.stop();
  });

  const appCredentials = (key = pem) =>
    githubAppCredentials({
      appId: '4242',
      installationId: '777',
      privateKeyPem: key,
      apiUrl: api.url,
      clock,
    });
  const publishOne = (url: string, cacheDir: string, id: string, credentials = appCredentials()) =>
    publish({
      remote: { kind: 'http', url },
      credentials,
      branch: 'main',
      writes: [aWrite({ id, files: { [`${id}.yaml`]: `${id}\n` } })],
      cacheDir,
      clock,
    });

  it('is obtained with a JWT the app public key verifies, and the push lands as x-access-token', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const asked = api.requests.length;
    const seen = world.proxy.requests.length;

    const result = await publishOne(url, await world.cacheDir(), 'first');

    expect(result).toMatchObject({ kind: 'published', attempts: 1 });
    expect(api.requests.slice(asked)).toEqual([
      {
        path: '/app/installations/777/access_tokens',
        status: 201,
        claims: { iss: '4242', iat: now / 1000 - 60, exp: now / 1000 + 540 },
      },
    ]);
    const reached = world.proxy.requests.slice(seen);
    expect(reached.every((r) => r.authorized && !r.credentialsRefused)).toBe(true);
    expect(await subjects(gitdir)).toEqual(['write first', 'seed']);
  });

  it('is kept while it lasts and replaced before it expires, without a refused request', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const credentials = appCredentials();
    const asked = api.requests.length;
    const seen = world.proxy.requests.length;

    await publishOne(url, cacheDir, 'one', credentials);
    now += 30 * MINUTE;
    await publishOne(url, cacheDir, 'two', credentials);
    const afterHalfAnHour = api.requests.length - asked;
    now += 26 * MINUTE; // 4 minutes before the first token's expiry
    const third = await publishOne(url, cacheDir, 'three', credentials);

    expect(afterHalfAnHour).toBe(1);
    expect(api.requests.length - asked).toBe(2);
    expect(third).toMatchObject({ kind: 'published' });
    expect(world.proxy.requests.slice(seen).filter((r) => r.credentialsRefused)).toEqual([]);
    expect(await subjects(gitdir)).toEqual(['write three', 'write two', 'write one', 'seed']);
  });

  it('is replaced when the host refuses it mid-publication, and the refused push is sent again and lands', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const asked = api.requests.length;
    const seen = world.proxy.requests.length;
    // the token is revoked after the listing and the fetch, just before the push reaches the host
    world.proxy.inject({ on: 'push', fault: { kind: 'before', run: async () => api.revokeAll() } });

    const result = await publishOne(url, await world.cacheDir(), 'after-revocation');

    expect(result).toMatchObject({ kind: 'published', attempts: 1 });
    expect(api.requests.length - asked).toBe(2);
    const pushes = world.proxy.requests.slice(seen).filter((r) => r.kind === 'push');
    expect(pushes.map((r) => Boolean(r.credentialsRefused))).toEqual([true, false]);
    expect(await subjects(gitdir)).toEqual(['write after-revocation', 'seed']);
  });

  it('is authFailed, saying what the token endpoint said, when the app key is not the one GitHub knows', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const seen = world.proxy.requests.length;

    const result = await publishOne(url, await world.cacheDir(), 'never', appCredentials(other));

    expect(result).toEqual({
      kind: 'authFailed',
      cause:
        'GitHub App installation token: the remote refused the credentials (HTTP 401): {"message":"A JSON web token could not be decoded"}',
    });
    expect(world.proxy.requests.length).toBe(seen);
    expect(await subjects(gitdir)).toEqual(['seed']);
  });
});

describe('an Entra ID token for Azure Repos', () => {
  /** A token credential (as a managed identity is) whose tokens last an hour on the test clock. */
  function fakeEntra() {
    const scopes: string[] = [];
    const valid = new Set<string>();
    let issued = 0;
    const credential: TokenCredential = {
      async getToken(scope): Promise<AccessToken> {
        scopes.push(String(scope));
        const token = `entra-${++issued}`;
        valid.add(token);
        return { token, expiresOnTimestamp: now + 60 * MINUTE };
      },
    };
    return { credential, scopes, valid, issued: () => issued };
  }
  const entra = fakeEntra();
  let world: GitWorld;
  beforeAll(async () => {
    world = await startGitWorld({
      host: 'azure-repos',
      authorize: (header) => entra.valid.has(header?.replace(/^Bearer /, '') ?? ''),
    });
  });
  afterEach(() => world.proxy.reset());
  afterAll(() => world.stop());

  it('is asked for the Azure DevOps scope, sent as Bearer, refreshed when Azure Repos answers 203, and the push lands', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const credentials = azureDevOpsCredentials({ credential: entra.credential, clock });
    const cacheDir = await world.cacheDir();
    const seen = world.proxy.requests.length;

    const first = await publish({
      remote: { kind: 'http', url },
      credentials,
      branch: 'main',
      writes: [aWrite({ id: 'one', files: { 'one.yaml': '1\n' } })],
      cacheDir,
      clock,
    });
    entra.valid.clear(); // the token stops being accepted before its stated expiry
    const second = await publish({
      remote: { kind: 'http', url },
      credentials,
      branch: 'main',
      writes: [aWrite({ id: 'two', files: { 'two.yaml': '2\n' } })],
      cacheDir,
      clock,
    });

    expect([first.kind, second.kind]).toEqual(['published', 'published']);
    expect(entra.scopes).toEqual([
      '499b84ac-1321-427f-aa17-267ca6975798/.default',
      '499b84ac-1321-427f-aa17-267ca6975798/.default',
    ]);
    // the warm second publication pushes at once: refused (203), then sent again with the new token
    expect(
      world.proxy.requests.slice(seen).map((r) => `${r.kind}${r.credentialsRefused ? ' 203' : ''}`),
    ).toEqual(['refs', 'fetch', 'push', 'push 203', 'push']);
    expect(await subjects(gitdir)).toEqual(['write two', 'write one', 'seed']);
  });

  it('is authFailed when the identity gives the refused token again, without a loop', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const stale: TokenCredential = {
      getToken: async () => ({ token: 'entra-revoked', expiresOnTimestamp: now + 60 * MINUTE }),
    };
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url },
      credentials: azureDevOpsCredentials({ credential: stale, clock }),
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
      clock,
    });

    expect(result).toEqual({ kind: 'authFailed', cause: 'the remote refused the credentials (HTTP 203)' });
    expect(world.proxy.requests.length - seen).toBe(1);
  });
});
