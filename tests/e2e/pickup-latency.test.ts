// On Azure Storage work is polled, not pushed: an idle queue is looked at once every
// maxQueuePollingInterval (the app's host.json: 5 s) and a fetch takes at most 32 messages
// (Azure/durabletask src/DurableTask.AzureStorage: TaskHubQueue.cs builds
// `new BackoffPollingHelper(minPollingDelay, this.settings.MaxQueuePollingInterval)`, which nothing
// resets; ControlQueue.GetMessagesAsync asks for `ControlQueueBatchSize` (32)). Every hop of a
// message (a signal, an activity, its result, a fired timer, an external event) can wait that long.
// These tests hold the app's own bounds under that model: a withdrawal answered within its 20 s,
// and a change published within its window plus the polls the driver crosses.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WITHDRAW_SAVE } from '../../shared/app/runtime/durable-names';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

const POLL_MS = 5_000; // host.json: storageProvider.maxQueuePollingInterval "00:00:05"
const WINDOW_IDLE_MS = 5_000; // oneTargetConfig: window.idleTimeout 5s

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-pickup-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }),
    {},
    { engine: { semantics: 'azure-storage', queuePolling: true } },
  );
});

afterAll(async () => {
  await app?.stop();
});

/** One audit event: ConfigMap `name` created by alice. */
function created(name: string) {
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    items: [
      {
        auditID: `created-${name}`,
        stage: 'ResponseComplete',
        verb: 'create',
        requestURI: '/api/v1/namespaces/shop/configmaps',
        user: { username: 'alice' },
        objectRef: { resource: 'configmaps', namespace: 'shop', name, apiVersion: 'v1' },
        responseStatus: { code: 201 },
        responseObject: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: 'shop', resourceVersion: '7' },
          data: { value: name },
        },
      },
    ],
  };
}

const published = async (name: string) =>
  (await git(remote, 'ls-tree', '-r', '--name-only', 'main').catch(() => '')).includes(
    `clusters/prod/shop/configmaps/${name}.yaml`,
  );

/** Moves the virtual clock a quarter second at a time until `done`; answers the time it took. */
async function onClockUntil(done: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = app.now();
  while (!(await done()) && app.now() - start < limitMs) await app.advance(250);
  expect(await done()).toBe(true);
  return app.now() - start;
}

it('publishes a change within its window plus the polls the driver crosses', async () => {
  const took: number[] = [];
  for (const name of ['first', 'second', 'third']) {
    expect((await app.http('POST', '/api/v1/targets/prod/audit', created(name))).status).toBe(200);
    took.push(await onClockUntil(() => published(name), 5 * 60_000));
    await app.advance(60_000);
  }
  // Each hop waits for a poll (at most POLL_MS): the signal, the driver's wake, its plan
  // (callEntity there and back), the window's timer, the next plan, the publish activity.
  for (const ms of took) expect(ms).toBeLessThanOrEqual(WINDOW_IDLE_MS + 8 * POLL_MS);
  // ...and polling shows: pickup is not instant (instant pickup publishes at the window's close)
  expect(Math.max(...took)).toBeGreaterThan(WINDOW_IDLE_MS + POLL_MS);
});

it('answers a withdrawal within its 20 s bound', async () => {
  const saveStatus = async (id: string) => (await app.http('GET', `/api/v1/targets/prod/saves/${id}`)).body;
  const tookMs: number[] = [];
  for (const id of ['w-1', 'w-2', 'w-3']) {
    const registered = await app.http('POST', '/api/v1/targets/prod/saves', {
      id,
      author: { username: 'alice' },
      window: { attachTimeout: '60s' },
    });
    expect(registered.status).toBe(202);
    await onClockUntil(async () => (await saveStatus(id))?.phase === 'WaitingForWindow', 60_000);
    // The route starts the withdrawal orchestration and waits for it on the (virtual) clock.
    const startedAt = app.now();
    const answer = app.http('DELETE', `/api/v1/targets/prod/saves/${id}`);
    const withdrawal = () =>
      app.host.client
        .list({})
        .find((s) => s.name === WITHDRAW_SAVE && Date.parse(s.createdTime) >= startedAt);
    await onClockUntil(async () => withdrawal()?.runtimeStatus === 'Completed', 60_000);
    tookMs.push(Date.parse(withdrawal()!.lastUpdatedTime) - startedAt);
    expect(await answer).toMatchObject({ status: 200, body: { outcome: 'Withdrawn' } });
  }
  for (const ms of tookMs) expect(ms).toBeLessThan(20_000);
  expect(Math.max(...tookMs)).toBeGreaterThan(POLL_MS);
});
