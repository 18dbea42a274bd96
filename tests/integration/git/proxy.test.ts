/**
 * The executor behind a corporate proxy, configured as git is, by the environment: `HTTPS_PROXY`
 * (a CONNECT tunnel), `HTTP_PROXY` (plain http sent whole), `NO_PROXY`, and a Git host whose
 * certificate a private CA signed, trusted through `NODE_EXTRA_CA_CERTS` (read by node at start,
 * so each publication runs in its own process, as the app does).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PublishResult } from '../../../shared/git/types';
import { aWrite } from '../../support/git/a-write';
import { createPrivateCa, type PrivateCa } from '../../support/git/private-ca';
import { type ConnectProxy, startConnectProxy } from '../../support/git/start-connect-proxy';
import type { GitHostMode } from '../../support/git/start-fault-proxy';
import { type GitWorld, logOf, startGitWorld } from './git-fixture';

const PROXY_VARIABLES = [
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'no_proxy',
  'NO_PROXY',
  'NODE_EXTRA_CA_CERTS',
];
const TOKEN = 'tok3n-inside-the-tunnel';

/** One publication in a fresh node process with exactly these proxy and CA variables. */
function publishInProcess(input: object, env: Record<string, string>): Promise<PublishResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !PROXY_VARIABLES.includes(name)),
  );
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'publish-in-child.ts'), JSON.stringify(input)],
    {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(Buffer.concat(out).toString()))
        : reject(new Error(`publish exited ${code}`)),
    );
  });
}
const subjects = async (gitdir: string) => (await logOf(gitdir)).map((line) => line.slice(41));

let dir: string;
let ca: PrivateCa;
let proxy: ConnectProxy;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubescribe-ca-'));
  ca = await createPrivateCa(dir);
  proxy = await startConnectProxy();
});
afterAll(async () => {
  await proxy.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A host of this mode behind TLS with the private CA's certificate, requiring the bearer token. */
const tlsWorld = (host: GitHostMode) =>
  startGitWorld({
    host,
    tls: { key: ca.key, cert: ca.cert },
    authorize: (header) => header === `Bearer ${TOKEN}`,
  });
const input = async (world: GitWorld, url: string, id: string) => ({
  remote: { kind: 'http', url, auth: { bearer: TOKEN } },
  branch: 'main',
  writes: [aWrite({ id, files: { [`${id}.yaml`]: `${id}\n` } })],
  cacheDir: await world.cacheDir(),
});

const modes: GitHostMode[] = ['http-backend', 'azure-repos', 'github', 'gitlab', 'current-git'];

describe.each(modes)('a %s host behind TLS with a private CA, reached through a CONNECT proxy', (host) => {
  let world: GitWorld;
  beforeAll(async () => {
    world = await tlsWorld(host);
  });
  afterAll(() => world.stop());

  it('publishes through the tunnel with the CA from NODE_EXTRA_CA_CERTS; the proxy never sees the token', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = proxy.requests.length;
    const before = world.proxy.requests.length;

    const result = await publishInProcess(await input(world, url, 'tunnelled'), {
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });

    expect(result).toMatchObject({ kind: 'published' });
    // one tunnel per request, and only the host name and port in the clear
    const reached = world.proxy.requests.slice(before);
    expect(proxy.requests.slice(seen)).toEqual(
      Array(reached.length).fill({ method: 'CONNECT', target: new URL(url).host }),
    );
    expect(reached.every((r) => r.authorized && !r.credentialsRefused)).toBe(true);
    expect(await subjects(gitdir)).toEqual(['write tunnelled', 'seed']);
  });
});

describe('a host with a private CA', () => {
  let world: GitWorld;
  beforeAll(async () => {
    world = await tlsWorld('github');
  });
  afterAll(() => world.stop());

  it('is refused when the private CA is not trusted, saying it is the certificate', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });

    const result = await publishInProcess(await input(world, url, 'untrusted'), { HTTPS_PROXY: proxy.url });

    expect(result).toMatchObject({ kind: 'transient', cause: expect.stringMatching(/certificate/) });
    expect(await subjects(gitdir)).toEqual(['seed']);
  });

  it('is reached straight when NO_PROXY names it', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = proxy.requests.length;

    const result = await publishInProcess(await input(world, url, 'direct'), {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: 'example.com, 127.0.0.1',
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect(proxy.requests.length).toBe(seen);
    expect(await subjects(gitdir)).toEqual(['write direct', 'seed']);
  });
});

describe('a plain-http Git host reached through HTTP_PROXY', () => {
  let world: GitWorld;
  let proxy: ConnectProxy;
  beforeAll(async () => {
    world = await startGitWorld();
    proxy = await startConnectProxy({ credentials: 'corp:pr0xy-pass' });
  });
  afterAll(async () => {
    await proxy.stop();
    await world.stop();
  });

  it('sends each request to the proxy, with the proxy credentials from its URL', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const proxyUrl = new URL(proxy.url);
    proxyUrl.username = 'corp';
    proxyUrl.password = 'pr0xy-pass';

    const result = await publishInProcess(
      {
        remote: { kind: 'http', url },
        branch: 'main',
        writes: [aWrite({ id: 'proxied', files: { 'b.yaml': 'b\n' } })],
        cacheDir: await world.cacheDir(),
      },
      { HTTP_PROXY: proxyUrl.href },
    );

    expect(result).toMatchObject({ kind: 'published' });
    expect(proxy.requests.map((r) => `${r.method} ${r.target.replace(url, '<repo>')}`)).toEqual([
      'GET <repo>/info/refs?service=git-upload-pack',
      'POST <repo>/git-upload-pack',
      'POST <repo>/git-upload-pack',
      'POST <repo>/git-receive-pack',
    ]);
    expect(
      proxy.requests.every(
        (r) => r.proxyAuthorization === `Basic ${Buffer.from('corp:pr0xy-pass').toString('base64')}`,
      ),
    ).toBe(true);
    expect(await subjects(gitdir)).toEqual(['write proxied', 'seed']);
  });

  it('reports a proxy that refuses its credentials (407) as authFailed, saying it is the proxy', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });

    const result = await publishInProcess(
      {
        remote: { kind: 'http', url },
        branch: 'main',
        writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
        cacheDir: await world.cacheDir(),
      },
      { HTTP_PROXY: proxy.url },
    );

    expect(result).toEqual({ kind: 'authFailed', cause: 'the proxy refused its credentials (HTTP 407)' });
  });
});
