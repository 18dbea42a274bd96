// The upgrade scenario, run by `generate-fixture.sh` inside a released commit's own checkout (as a
// jest test there, with that release's app host): it leaves a data folder holding everything an
// upgrade must carry over, and copies it to UPGRADE_FIXTURE_OUT. Written against the test support of
// release 0.1.0, which later releases keep: startAppHost, oneTargetConfig.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type AppHost, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { upgradeRemote, upgradeScenario } from './upgrade-scenario';

let app: AppHost;

afterAll(() => {
  jest.useRealTimers();
  if (app) rmSync(app.dataDir, { recursive: true, force: true });
});

it('leaves held changes, a held save, an open window and a driver between retries', async () => {
  const out = process.env.UPGRADE_FIXTURE_OUT;
  const release = process.env.UPGRADE_RELEASE;
  if (!out || !release)
    throw new Error('UPGRADE_FIXTURE_OUT and UPGRADE_RELEASE name the folder and the release');
  const remote = upgradeRemote(release);
  // Git is down: the repository does not exist yet. The upgrade test creates it.
  rmSync(remote, { recursive: true, force: true });
  app = await startAppHost(oneTargetConfig({ url: remote }));
  for (const step of upgradeScenario.steps) {
    if (step.post) {
      const answer = await app.http('POST', step.post.path, step.post.body);
      expect(answer.status).toBe(step.post.status);
    }
    if (step.advanceMs) await app.advance(step.advanceMs);
  }
  const status = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(status.publication).toMatchObject({ pendingWrites: 2, retryAt: expect.any(String) });
  expect(status.window).toMatchObject({ open: true });
  expect((await app.http('GET', '/api/v1/targets/prod/saves/release-1')).body).toMatchObject({
    phase: 'WaitingForPush',
  });
  await app.host.stop();
  rmSync(out, { recursive: true, force: true });
  // The Git cache is a cache: an upgrade must do without it.
  const cache = join(app.dataDir, 'git-cache');
  cpSync(app.dataDir, out, { recursive: true, filter: (path) => !path.startsWith(cache) });
});
