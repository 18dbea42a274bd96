// What the withdrawal's 20 s bound needs from host.json: at DTFx's default maxQueuePollingInterval
// (30 s: Azure/durabletask src/DurableTask.AzureStorage/AzureStorageOrchestrationServiceSettings.cs,
// `DefaultMaxQueuePollingInterval = TimeSpan.FromSeconds(30)`) the three polls of a withdrawal
// (its start, the call to the branch entity, the answer) can pass the bound, which is why the
// app's host.json sets 5 s (tests/e2e/pickup-latency.test.ts holds the bound with it).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WITHDRAW_SAVE } from '../../shared/app/runtime/durable-names';
import { type AppHost, createBareRepository, oneTargetConfig, startAppHost } from '../support/app/app-host';

let app: AppHost;

beforeAll(async () => {
  const remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-pickup-30s-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }),
    {},
    { engine: { semantics: 'azure-storage', queuePolling: true, maxQueuePollingIntervalMs: 30_000 } },
  );
});

afterAll(async () => {
  await app?.stop();
});

it('with a 30 s polling interval, a withdrawal can take longer than its 20 s bound', async () => {
  const registered = await app.http('POST', '/api/v1/targets/prod/saves', {
    id: 'slow',
    author: { username: 'alice' },
    window: { attachTimeout: '60s' },
  });
  expect(registered.status).toBe(202);
  for (let i = 0; i < 400; i++) {
    const read = await app.http('GET', '/api/v1/targets/prod/saves/slow');
    if (read.body?.phase === 'WaitingForWindow') break;
    await app.advance(250);
  }
  const startedAt = app.now();
  const answer = app.http('DELETE', '/api/v1/targets/prod/saves/slow');
  const withdrawal = () =>
    app.host.client.list({}).find((s) => s.name === WITHDRAW_SAVE && Date.parse(s.createdTime) >= startedAt);
  while (withdrawal()?.runtimeStatus !== 'Completed' && app.now() - startedAt < 5 * 60_000)
    await app.advance(250);
  expect(Date.parse(withdrawal()!.lastUpdatedTime) - startedAt).toBeGreaterThan(20_000);
  // The route gave up at its bound (on the same clock) and said so; the withdrawal itself took effect.
  expect((await answer).status).toBeGreaterThanOrEqual(500);
  expect((await app.http('GET', '/api/v1/targets/prod/saves/slow')).body).toMatchObject({
    phase: 'Resolved',
    outcome: 'Withdrawn',
  });
});
