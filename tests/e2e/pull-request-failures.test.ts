// A pull-request host that fails, end to end: the app on the embedded host (virtual clock) pushes a
// propose target's commits to a real `git http-backend` and calls the GitHub emulator
// (tests/support/forges/github-emulator.ts, citing docs.github.com), told to answer one call with
// a fault or to refuse the token. Each failure is classified as a push's (forgeFailure,
// shared/git/forges/forge-errors.ts): GitHub answers a bad token 401 "Bad credentials", a secondary
// rate limit 429 with `retry-after` in seconds ("Rate limits for the REST API", docs.github.com),
// an invalid pull request 422 "Validation Failed".
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, startAppHost } from '../support/app/app-host';
import { configMapEvent } from '../support/app/branch-observations';
import { type GitHubEmulator, startGitHubEmulator } from '../support/forges/github-emulator';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const TOKEN = 'ghp_e2e-token-0123456789abcdef';
const POLL_MS = 5_000;

let app: AppHost;
let served: ProxiedRemote;
let host: GitHubEmulator;

beforeAll(async () => {
  served = await startProxiedRemote({ name: 'org/state.git' });
  host = await startGitHubEmulator({ token: TOKEN });
  app = await startAppHost(
    {
      repositories: [
        {
          name: 'state',
          url: served.url,
          auth: { username: 'x-access-token', tokenEnv: 'GIT_TOKEN' },
          forge: { kind: 'github', apiUrl: host.url },
        },
      ],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: 'clusters/prod',
          publish: 'propose',
          window: { idleTimeout: '1s', maxDuration: '5s' },
        },
      ],
      limits: { gitCallTimeout: '5s', publishTimeout: '30s', pushCooldown: '0s', pullRequestPoll: '5s' },
      server: { auth: 'disabled' },
    },
    { GIT_TOKEN: TOKEN },
  );
});

afterAll(async () => {
  await app?.stop();
  await host?.stop();
  await served?.stop();
});

type Condition = { type: string; status: string; reason: string; message: string };

async function target() {
  const answer = await app.http('GET', '/api/v1/targets/prod');
  expect(answer.status).toBe(200);
  return answer.body as {
    conditions: Condition[];
    pullRequest: {
      open: { number: number } | null;
      lastError: { message: string; at: string; kind: string } | null;
    };
  };
}

const stalled = async () => (await target()).conditions.find((condition) => condition.type === 'Stalled');

async function change(name: string): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [configMapEvent(name, 'alice')],
  });
  expect(response.status).toBe(202);
}

async function metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metrics = parsePrometheusText(await (await fetch(`${app.host.url}/metrics`)).text());
  return sampleValue(metrics, name, labels);
}

const credentialsRefusedGauge = () => metric('kubescribe_credentials_refused');
const callsOf = (outcome: string) => metric('kubescribe_pull_request_calls_total', { outcome });

it('a call the host rejects (422) is shown in pullRequest.lastError, the target not Stalled, and retried at the poll interval', async () => {
  host.failNext({
    status: 422,
    json: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom' }] },
  });
  await change('web');
  await app.advance(3000);

  expect(host.pulls()).toHaveLength(0);
  const failed = await target();
  expect(failed.pullRequest.lastError).toMatchObject({ kind: 'rejected' });
  expect(failed.pullRequest.lastError?.message).toContain('Validation Failed');
  expect(await stalled()).toMatchObject({ status: 'False' });

  await app.advance(POLL_MS);
  expect(host.pulls()).toHaveLength(1);
  expect((await target()).pullRequest).toMatchObject({ open: { number: 1 }, lastError: null });
});

it('a token the host refuses shows the repository Stalled CredentialsRefused, and recovers when a call succeeds again', async () => {
  host.rotate('ghp_another-token-the-app-does-not-have');
  await change('api');
  await app.advance(3000);

  expect(await stalled()).toMatchObject({ status: 'True', reason: 'CredentialsRefused' });
  expect((await stalled())?.message).toContain('Bad credentials');
  expect((await target()).pullRequest.lastError).toMatchObject({ kind: 'credentials-refused' });
  expect(await credentialsRefusedGauge()).toBe(1);
  expect(host.pulls()[0]?.description).not.toContain('api.yaml');

  // the token is allowed again, and a refresh (as the Stalled message says) retries at once
  expect((await stalled())?.message).toContain('/refresh');
  host.rotate(TOKEN);
  expect((await app.http('POST', '/api/v1/targets/prod/refresh')).status).toBe(202);
  await app.advance(1000);
  expect(await stalled()).toMatchObject({ status: 'False', reason: 'Current' });
  expect((await target()).pullRequest.lastError).toBeNull();
  expect(await credentialsRefusedGauge()).toBe(0);
  expect(host.pulls()[0]?.description).toContain('api.yaml');
});

it("a rate limit's retry-after is waited for instead of the poll interval", async () => {
  host.failNext({
    status: 429,
    json: { message: 'You have exceeded a secondary rate limit' },
    headers: { 'retry-after': '60' },
  });
  await change('db');
  await app.advance(3000);
  expect((await target()).pullRequest.lastError).toMatchObject({ kind: 'transient' });
  const callsAfterFailure = host.calls.length;

  // several poll intervals pass: the host is not asked again before its retry-after
  await app.advance(50_000);
  expect(host.calls.length).toBe(callsAfterFailure);
  expect(host.pulls()[0]?.description).not.toContain('db.yaml');

  await app.advance(15_000);
  expect(host.calls.length).toBeGreaterThan(callsAfterFailure);
  expect(host.pulls()[0]?.description).toContain('db.yaml');
  expect((await target()).pullRequest.lastError).toBeNull();
});

it('kubescribe_pull_request_calls_total counts each call by its answer or its failure', async () => {
  // one failure of each kind above; the successful calls opened, updated and read the pull request
  expect(await callsOf('rejected')).toBe(1);
  expect(await callsOf('credentials-refused')).toBe(1);
  expect(await callsOf('transient')).toBe(1);
  expect(await callsOf('open')).toBeGreaterThanOrEqual(3);
});
