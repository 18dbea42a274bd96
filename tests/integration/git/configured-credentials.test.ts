/**
 * The app's own wiring of a repository's `auth.kind`: the read-remote activity, configured as an
 * operator would, reaches the host with a GitHub App installation token, or with the Entra ID token
 * of the Function app's managed identity (App Service's identity endpoint, `IDENTITY_ENDPOINT` and
 * `IDENTITY_HEADER`, faked at the HTTP level here).
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runReadRemote } from '../../../shared/app/activities/read-remote';
import { type AppRuntime, createAppRuntime } from '../../../shared/app/runtime/app-runtime';
import { branchKeyFor } from '../../../shared/app/runtime/branch-key';
import { loadConfig } from '../../../shared/config';
import { openPayloadStore } from '../../../shared/payloads';
import { runGit } from '../../support/git/run-git';
import { startGitHubAppApi } from '../../support/git/start-github-app-api';
import { startGitWorld } from './git-fixture';

async function runtimeFor({
  url,
  auth,
  env = {},
  data,
}: {
  url: string;
  auth: unknown;
  env?: Record<string, string>;
  data: string;
}): Promise<AppRuntime> {
  const config = {
    repositories: [{ name: 'state', url, auth }],
    targets: [{ name: 'prod', repository: 'state', branch: 'main' }],
    server: { auth: 'disabled' },
  };
  const loaded = await loadConfig({
    env: { ...env, KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config), KUBESCRIBE_DATA: data },
    readFile: (path) => readFile(path, 'utf8'),
  });
  return createAppRuntime({
    loaded,
    payloads: await openPayloadStore({ setting: loaded.payloads }),
    nowMs: Date.now,
  });
}
const readMain = (runtime: AppRuntime, url: string) =>
  runReadRemote(runtime, {
    branchKey: branchKeyFor(url, 'main').key,
    repository: 'state',
    branch: 'main',
    ref: 'main',
  });
const headOf = (gitdir: string) => runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main'] });

it('a repository with auth.kind github-app is read with an installation token, obtained once per process', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const api = await startGitHubAppApi({ appId: '4242', installationId: '777', publicKey, now: Date.now });
  const world = await startGitWorld({
    host: 'github',
    authorize: (header) => {
      const [user, token] = Buffer.from(header?.replace(/^Basic /, '') ?? '', 'base64')
        .toString()
        .split(':');
      return user === 'x-access-token' && api.accepts(token ?? '');
    },
  });
  try {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const runtime = await runtimeFor({
      url,
      auth: {
        kind: 'github-app',
        appId: 4242,
        installationId: 777,
        privateKeyEnv: 'GH_APP_KEY',
        apiUrl: api.url,
      },
      env: { GH_APP_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() },
      data: join(world.root, 'data'),
    });

    const answers = [await readMain(runtime, url), await readMain(runtime, url)];

    expect(answers).toEqual([
      { found: true, head: await headOf(gitdir) },
      { found: true, head: await headOf(gitdir) },
    ]);
    expect(api.requests.map((r) => r.status)).toEqual([201]);
  } finally {
    await world.stop();
    await api.stop();
  }
});

describe('a repository with auth.kind azure-identity', () => {
  const requests: { path: string; query: Record<string, string>; secret: string | undefined }[] = [];
  let identity: http.Server;
  const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };
  beforeAll(async () => {
    identity = http.createServer((req, res) => {
      const at = new URL(req.url ?? '/', 'http://identity');
      requests.push({
        path: at.pathname,
        query: Object.fromEntries(at.searchParams),
        secret: req.headers['x-identity-header'] as string | undefined,
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          access_token: `entra-msi-${requests.length}`,
          expires_on: String(Math.floor(Date.now() / 1000) + 3600),
          resource: at.searchParams.get('resource'),
          token_type: 'Bearer',
        }),
      );
    });
    await new Promise<void>((resolve) => identity.listen(0, '127.0.0.1', resolve));
    process.env.IDENTITY_ENDPOINT = `http://127.0.0.1:${(identity.address() as AddressInfo).port}/msi/token`;
    process.env.IDENTITY_HEADER = 'functions-identity-secret';
  });
  afterAll(async () => {
    for (const [name, value] of [
      ['IDENTITY_ENDPOINT', saved.endpoint],
      ['IDENTITY_HEADER', saved.header],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await new Promise<void>((resolve) => identity.close(() => resolve()));
  });

  it('is read with the managed identity’s token for Azure DevOps, asked for as App Service documents', async () => {
    const world = await startGitWorld({
      host: 'azure-repos',
      authorize: (header) => header === 'Bearer entra-msi-1',
    });
    try {
      const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
      const runtime = await runtimeFor({
        url,
        auth: { kind: 'azure-identity', clientId: '6f1d1b5e-0000-4000-8000-00000000c11d' },
        data: join(world.root, 'data'),
      });

      const answer = await readMain(runtime, url);

      expect(answer).toEqual({ found: true, head: await headOf(gitdir) });
      expect(requests).toEqual([
        {
          path: '/msi/token',
          query: {
            'api-version': '2019-08-01',
            resource: '499b84ac-1321-427f-aa17-267ca6975798',
            client_id: '6f1d1b5e-0000-4000-8000-00000000c11d',
          },
          secret: 'functions-identity-secret',
        },
      ]);
    } finally {
      await world.stop();
    }
  });
});
