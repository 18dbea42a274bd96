// A deployment's overlap: this release and the next run on one task hub, taking turns on the same
// branch (as the engine moves partitions between old and new workers), on one store. Entities are
// not versioned, so each release runs the branch entity on the state the other wrote: this release
// carries the next one's newer state forward. Drivers are: under CurrentOrOlder + Reject this
// release leaves the next one's driver for a next worker (Azure/durabletask at 5217032,
// TaskOrchestrationDispatcher.cs lines 410-412 and 427-430), and the next release ends this one's
// driver and starts its own. Every accepted change is published, each exactly once.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRANCH_STATE_VERSION } from '../../shared/app/entity/stored-state';
import { DRIVER_VERSION, driverInstanceId } from '../../shared/app/runtime/durable-names';
import { type AppHost, createBareRepository, git, oneTargetConfig } from '../support/app/app-host';
import { loadRelease, NEXT_DRIVER_VERSION } from '../support/app/next-release';

const work = mkdtempSync(join(tmpdir(), 'kubescribe-overlap-'));
const dataDir = mkdtempSync(join(work, 'data-'));
let remote = '';
let host: AppHost | undefined;

afterAll(async () => {
  await host?.host.stop();
  jest.useRealTimers();
  rmSync(work, { recursive: true, force: true });
});

const configMap = (name: string) => ({
  type: 'ADDED',
  resource: 'configmaps',
  author: { username: name.startsWith('a') ? 'alice' : 'bob' },
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { n: name } },
});

async function post(app: AppHost, ...names: string[]) {
  const res = await app.http('POST', '/api/v1/targets/prod/events', { events: names.map(configMap) });
  expect({ status: res.status, body: res.body, names }).toEqual({
    status: 202,
    body: expect.anything(),
    names,
  });
  return res.body.branch as string;
}

it('publishes every change accepted by either release exactly once, while they take turns', async () => {
  remote = await createBareRepository(join(work, 'state.git'));
  const config = oneTargetConfig({ url: remote });
  const turn = async (release: 'current' | 'next') => {
    await host?.host.stop();
    const { startAppHost, hostJsonFile } = loadRelease(release, work);
    host = await startAppHost(config, {}, { dataDir, hostJsonFile });
    return host;
  };

  // This release alone: a window published, another left open.
  let app = await turn('current');
  const branch = await post(app, 'a1', 'a2');
  await app.advance(10_000);
  await post(app, 'a3');
  const driver = driverInstanceId(branch);
  expect(app.host.client.getStatus(driver)).toMatchObject({ runtimeStatus: 'Running' });

  // The next release takes the branch: it upgrades the state, ends this release's driver at its
  // next episode and starts its own at the next wake.
  app = await turn('next');
  await post(app, 'b1');
  await app.advance(15_000);
  await post(app, 'b2');
  expect(app.host.client.getStatus(driver)).toMatchObject({ runtimeStatus: 'Running' });

  // This release again: it accepts into the newer state; the next release's driver waits for a
  // next worker, its timers and wakes left queued.
  app = await turn('current');
  await post(app, 'a4');
  await app.advance(15_000);
  expect(app.logs).toContainEqual(
    expect.objectContaining({
      event: 'OrchestrationVersionRejected',
      instanceId: driver,
      version: NEXT_DRIVER_VERSION,
    }),
  );
  expect(app.logs.filter((line) => line.event === 'EntityVersionFailed')).toEqual([]);

  // The next release alone, as when the deployment completes.
  app = await turn('next');
  await app.advance(70_000);

  // No commit published twice: each one adds or changes a file.
  const commits = (await git(remote, 'log', '--format=%x00%H', '--name-status', 'main')).split('\0').slice(1);
  for (const commit of commits) expect(commit.trim().split('\n').length).toBeGreaterThan(1);
  const created = (await git(remote, 'log', '--format=', '--name-status', 'main'))
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('A\t'))
    .map((line) => line.slice(2))
    .sort();
  expect(created).toEqual(
    ['a1', 'a2', 'a3', 'a4', 'b1', 'b2'].map((name) => `clusters/prod/shop/configmaps/${name}.yaml`),
  );
  const status = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(status.publication).toMatchObject({ pendingWrites: 0, retryAt: null });
  // The state the next release upgraded once, and this release carried forward, never downgraded.
  const entity = app.host.client.readEntityState('branch', branch);
  expect(entity).toMatchObject({
    exists: true,
    state: { nextRelease: { upgrades: 1 }, branch: { version: BRANCH_STATE_VERSION + 1 } },
  });
  expect(DRIVER_VERSION).not.toBe(NEXT_DRIVER_VERSION);
});
