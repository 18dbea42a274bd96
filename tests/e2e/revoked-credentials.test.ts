// A revoked Git token end to end, as an operator lives it: the real `git http-backend` behind an
// http server that answers 401 to any other bearer token (as GitHub, GitLab and Azure Repos answer
// a revoked personal access token: RFC 9110 §15.5.2 with WWW-Authenticate), the token read from a
// file (a mounted Kubernetes Secret), then replaced on disk and a refresh sent.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, git, startAppHost } from '../support/app/app-host';
import { configMapEvent } from '../support/app/branch-observations';
import { createBareRepo } from '../support/git/create-bare-repo';
import { startGitServer } from '../support/git/start-git-server';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const VALID = 'ghp_valid-token-after-rotation';
let app: AppHost;
let server: { url: string; stop(): Promise<void> };
let root: string;
let remote: string;
let tokenFile: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ks-revoked-'));
  remote = await createBareRepo({ root, name: 'state.git', files: { 'README.md': 'cluster state\n' } });
  server = await startGitServer({ root, auth: { bearer: VALID } });
  tokenFile = join(root, 'git-token');
  writeFileSync(tokenFile, 'ghp_revoked-token\n');
  app = await startAppHost({
    repositories: [
      {
        name: 'state',
        url: `${server.url}/state.git`,
        auth: { tokenFile },
        committer: { name: 'kubescribe', email: 'kubescribe@example.invalid' },
      },
    ],
    targets: [
      {
        name: 'prod',
        repository: 'state',
        branch: 'main',
        path: 'clusters/prod',
        window: { idleTimeout: '5s', maxDuration: '1m' },
      },
    ],
    limits: { gitCallTimeout: '5s', publishTimeout: '20s' },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  await app?.stop();
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function target() {
  return (await app.http('GET', '/api/v1/targets/prod')).body;
}

const conditionOf = (status: { conditions: { type: string; message: string }[] }, type: string) =>
  status.conditions.find((condition) => condition.type === type);

async function credentialsRefusedGauge(branch: string) {
  const text = await (await fetch(`${app.host.url}/metrics`)).text();
  return sampleValue(parsePrometheusText(text), 'kubescribe_credentials_refused', { branch });
}

describe('a Git token the remote no longer accepts', () => {
  let branch = '';

  it('is Stalled with reason CredentialsRefused, not a retry that looks temporary', async () => {
    const posted = await app.http('POST', '/api/v1/targets/prod/events', {
      events: [configMapEvent('checkout')],
    });
    expect(posted.status).toBe(202);
    branch = posted.body.branch;
    // the window closes after 5 s idle; the attempt is refused, then retried at 10 s, 20 s, 40 s
    await app.advance(6_000 + 10_000 + 20_000);
    const status = await target();
    expect(conditionOf(status, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'CredentialsRefused',
      message: expect.stringContaining('HTTP 401'),
    });
    expect(conditionOf(status, 'Ready')).toMatchObject({ status: 'False', reason: 'CredentialsRefused' });
    expect(conditionOf(status, 'Reconciling')).toMatchObject({ status: 'False' });
    expect(conditionOf(status, 'Stalled')?.message).toContain('refresh');
    expect(status.publication.pendingWrites).toBe(1);
    expect(await credentialsRefusedGauge(branch)).toBe(1);
    const warned = app.logs.filter((record) => record.event === 'PublicationAttemptFailed');
    expect(warned.at(-1)).toMatchObject({ kind: 'credentials-refused' });
  });

  it('publishes at once after the token file is replaced and a refresh is sent', async () => {
    const before = await target();
    const retryAt = Date.parse(before.publication.retryAt);
    // the next attempt is backed off well beyond the second this test waits
    expect(retryAt - app.now()).toBeGreaterThan(10_000);

    writeFileSync(tokenFile, `${VALID}\n`);
    expect((await app.http('POST', '/api/v1/targets/prod/refresh')).status).toBe(202);
    await app.advance(1_000);

    expect(app.now()).toBeLessThan(retryAt);
    const after = await target();
    expect(after.publication).toMatchObject({ pendingWrites: 0, retryAt: null });
    expect(conditionOf(after, 'Ready')).toMatchObject({ status: 'True' });
    expect(conditionOf(after, 'Stalled')).toMatchObject({ status: 'False' });
    expect(await git(remote, 'show', 'main:clusters/prod/shop/configmaps/checkout.yaml')).toContain(
      'name: checkout',
    );
    expect(await credentialsRefusedGauge(branch)).toBe(0);
  });
});
