// The snapshot-parts upgrade scenario, run by `generate-fixture.sh <version> <commit> snapshot-parts`
// inside a released commit's own checkout (as a jest test there, with that release's app host): two
// parts of prod's snapshot `resync-1` are posted and not completed, so the release's branch state
// keeps them as that release keeps parts (0.3.0: by the bare id); the data folder is copied to
// UPGRADE_FIXTURE_OUT with the time the host stopped. Written against the test support of 0.3.0.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AppHost, startAppHost } from '../support/app/app-host';
import {
  PROD_PARTS,
  SNAPSHOT_ID,
  STOPPED_AT_FILE,
  snapshotPartsFixture,
  twoTargetsConfig,
} from './snapshot-parts-scenario';
import { upgradeRemote } from './upgrade-scenario';

let app: AppHost;

afterAll(() => {
  jest.useRealTimers();
  if (app) rmSync(app.dataDir, { recursive: true, force: true });
});

it('leaves two parts of a snapshot posted and not completed', async () => {
  const out = process.env.UPGRADE_FIXTURE_OUT;
  const release = process.env.UPGRADE_RELEASE;
  if (!out || !release)
    throw new Error('UPGRADE_FIXTURE_OUT and UPGRADE_RELEASE name the folder and the release');
  const remote = upgradeRemote(snapshotPartsFixture(release));
  // Git is down: the repository does not exist yet. The upgrade test creates it.
  rmSync(remote, { recursive: true, force: true });
  app = await startAppHost(twoTargetsConfig(remote));
  for (const part of PROD_PARTS) {
    const answer = await app.http('POST', `/api/v1/targets/prod/snapshots/${SNAPSHOT_ID}/parts`, part);
    expect(answer.status).toBe(202);
  }
  await app.advance(2000);
  const status = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(status.publication).toMatchObject({ pendingWrites: 0 });
  const stoppedAt = app.now();
  await app.host.stop();
  rmSync(out, { recursive: true, force: true });
  // The Git cache is a cache: an upgrade must do without it.
  const cache = join(app.dataDir, 'git-cache');
  cpSync(app.dataDir, out, { recursive: true, filter: (path) => !path.startsWith(cache) });
  writeFileSync(join(out, STOPPED_AT_FILE), `${stoppedAt}\n`);
});
