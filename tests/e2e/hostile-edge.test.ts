// The real app on the embedded host, two targets, tokens required: what a local process or a
// client without a token can reach. Nothing reaches the branch without the durable client API's
// secret, no request without a token gets its body read, and bad URLs and Host headers are 400s.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { branchKeyFor } from '../../shared/app/runtime/branch-key';
import { BRANCH_ENTITY } from '../../shared/app/runtime/durable-names';
import { type AppHost, createBareRepository, git, startAppHost } from '../support/app/app-host';
import { rawRequest } from '../support/http/raw-request';

const PROD_TOKEN = 'prod-source-token-hostile-1';
const asProd = { authorization: `Bearer ${PROD_TOKEN}` };

let app: AppHost;
let remoteDir: string;
let remote: string;

beforeAll(async () => {
  remoteDir = mkdtempSync(join(tmpdir(), 'ks-hostile-remote-'));
  remote = await createBareRepository(join(remoteDir, 'state.git'));
  const target = (name: string, branch: string) => ({
    name,
    repository: 'state',
    branch,
    path: `clusters/${name}`,
    window: { idleTimeout: '2s', maxDuration: '1m' },
  });
  app = await startAppHost(
    {
      repositories: [{ name: 'state', url: remote }],
      targets: [target('prod', 'main'), target('lab', 'lab')],
      sources: [{ name: 'cluster-prod', tokenEnv: 'KS_HOSTILE_PROD_TOKEN', targets: ['prod'] }],
      limits: { pushCooldown: '0s' },
      server: { auth: 'required' },
    },
    { KS_HOSTILE_PROD_TOKEN: PROD_TOKEN },
  );
});

afterAll(async () => {
  await app?.stop();
  if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
});

const configMap = (name: string) => ({
  events: [
    {
      type: 'ADDED',
      resource: 'configmaps',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'shop' },
        data: { k: 'v' },
      },
    },
  ],
});

it('gives a local process without the RPC secret no way to signal a branch: nothing is committed', async () => {
  const { origin } = new URL(app.host.rpcBaseUrl);
  const key = branchKeyFor(remote, 'main').key;
  const at = new Date(app.now()).toISOString();
  const pwn = {
    commands: [
      { type: 'ChangeSettings', at, target: 'pwn', path: '.' },
      {
        type: 'AdmitChanges',
        at,
        target: 'pwn',
        author: { name: 'mallory' },
        attribution: 'watch',
        changes: [{ path: '.github/workflows/pwn.yml', operation: 'upsert', bytes: 1 }],
      },
    ],
  };
  const signal = rawRequest(origin, {
    method: 'POST',
    path: `/durabletask/entities/${BRANCH_ENTITY}/${key}?op=apply`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(pwn),
  });
  expect((await signal.answer).status).toBe(401);
  const read = rawRequest(origin, { path: `/durabletask/entities/${BRANCH_ENTITY}/${key}` });
  expect((await read.answer).status).toBe(401);
  await app.advance(5000);
  expect(app.host.client.readEntityState(BRANCH_ENTITY, key)).toEqual({ exists: false });
  await expect(git(remote, 'rev-parse', '--verify', 'main')).rejects.toThrow();
});

it('answers a request without a token with 401 before its body has been sent, on every body route', async () => {
  for (const path of [
    '/api/v1/targets/prod/events',
    '/api/v1/targets/prod/audit',
    '/api/v1/targets/prod/snapshots',
    '/api/v1/targets/prod/snapshots/s1/parts',
    '/api/v1/targets/prod/snapshots/s1/complete',
    '/api/v1/targets/prod/saves',
    '/api/v1/admission',
  ]) {
    const { answer, req } = rawRequest(app.host.url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      declare: 10 * 1024 * 1024,
      body: '{"events": [',
    });
    expect(await answer).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    req.destroy();
  }
});

it('answers a URL that is not valid percent-encoding with 400 naming it, and logs no error', async () => {
  const { answer } = rawRequest(app.host.url, {
    method: 'POST',
    path: '/api/v1/targets/pr%E0%A4%Aod/events',
    headers: { ...asProd, 'content-type': 'application/json' },
    body: JSON.stringify(configMap('a')),
  });
  expect(await answer).toMatchObject({
    status: 400,
    body: { error: 'invalid-input', message: expect.stringMatching(/percent-encoding/) },
  });
  expect(app.logs.filter((l) => l.level === 'error')).toEqual([]);
});

it('answers a bad Host header with 400 and another name with 421, and logs no error', async () => {
  const bad = rawRequest(app.host.url, {
    path: '/api/v1/targets/prod',
    headers: { ...asProd, host: '[::1' },
  });
  expect(await bad.answer).toMatchObject({ status: 400, body: { error: 'invalid-input' } });
  const other = rawRequest(app.host.url, {
    path: '/api/v1/targets/prod',
    headers: { ...asProd, host: 'kubescribe.attacker.example' },
  });
  expect(await other.answer).toMatchObject({ status: 421, body: { error: 'misdirected-request' } });
  expect(app.logs.filter((l) => l.level === 'error')).toEqual([]);
});

it('still takes a change with its token and publishes it', async () => {
  expect((await app.http('POST', '/api/v1/targets/prod/events', configMap('ok'), asProd)).status).toBe(202);
  await app.advance(5000);
  expect(await git(remote, 'ls-tree', '-r', '--name-only', 'main')).toBe(
    'clusters/prod/shop/configmaps/ok.yaml\n',
  );
});
