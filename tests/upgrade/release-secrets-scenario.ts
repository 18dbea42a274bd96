// The Secrets upgrade scenario, run by `generate-fixture.sh <version> <commit> secrets` inside a
// released commit's own checkout (as a jest test there, with that release's app host): a target with
// age encryption accepts a Secret while Git is down and holds it; the data folder is copied to
// UPGRADE_FIXTURE_OUT with the test age identity beside it. Written against the test support of
// release 0.2.0 (the first with encryption): startAppHost with env, oneTargetConfig, newAgeIdentity.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { copyFileSync, cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type AppHost, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { newAgeIdentity } from '../support/secrets/sops-check';
import {
  AGE_IDENTITY_FILE,
  DERIVATION_KEY,
  encryptedTarget,
  KEY_ENV,
  secretEvents,
  secretsFixture,
} from './secrets-scenario';
import { upgradeRemote } from './upgrade-scenario';

let app: AppHost;

afterAll(() => {
  jest.useRealTimers();
  if (app) rmSync(app.dataDir, { recursive: true, force: true });
});

it('leaves a Secret write held for an encrypted target', async () => {
  const out = process.env.UPGRADE_FIXTURE_OUT;
  const release = process.env.UPGRADE_RELEASE;
  if (!out || !release)
    throw new Error('UPGRADE_FIXTURE_OUT and UPGRADE_RELEASE name the folder and the release');
  const remote = upgradeRemote(secretsFixture(release));
  // Git is down: the repository does not exist yet. The upgrade test creates it.
  rmSync(remote, { recursive: true, force: true });
  const identity = newAgeIdentity();
  app = await startAppHost(oneTargetConfig({ url: remote, target: encryptedTarget(identity.recipient) }), {
    [KEY_ENV]: DERIVATION_KEY,
  });
  expect((await app.http('POST', '/api/v1/targets/prod/events', secretEvents)).status).toBe(202);
  await app.advance(6000);
  const status = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(status.publication).toMatchObject({ pendingWrites: 1, retryAt: expect.any(String) });
  await app.host.stop();
  rmSync(out, { recursive: true, force: true });
  // The Git cache is a cache: an upgrade must do without it.
  const cache = join(app.dataDir, 'git-cache');
  cpSync(app.dataDir, out, { recursive: true, filter: (path) => !path.startsWith(cache) });
  copyFileSync(identity.file, join(out, AGE_IDENTITY_FILE));
});
