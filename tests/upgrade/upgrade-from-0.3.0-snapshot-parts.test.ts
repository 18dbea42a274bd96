// 0.3.0 kept the parts of a snapshot sent in pieces by the sender's id alone (branch state version 3),
// so two targets of one branch using one id merged into one snapshot. The current code starts on the
// data folder 0.3.0 left with two parts of prod's `resync-1` posted and not completed
// (tests/fixtures/upgrade/0.3.0-snapshot-parts, made by
// `generate-fixture.sh 0.3.0 d0e18c0 snapshot-parts`), a few minutes after it stopped (an upgrade,
// not an abandoned snapshot): staging sends a snapshot of the same id, prod completes its own, and
// each lands in its own folder with its own objects.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, git, startAppHost } from '../support/app/app-host';
import {
  COMPLETION,
  configMapPart,
  PROD_PARTS,
  SNAPSHOT_ID,
  STOPPED_AT_FILE,
  snapshotPartsFixture,
  twoTargetsConfig,
} from './snapshot-parts-scenario';
import { UPGRADE_FIXTURES } from './upgrade-from';
import { upgradeRemote } from './upgrade-scenario';

const fixture = join(UPGRADE_FIXTURES, snapshotPartsFixture('0.3.0'));
const remote = upgradeRemote(snapshotPartsFixture('0.3.0'));
// How long the upgrade took: the host restarts on the fixture's clock, this much later.
const UPGRADE_MS = 5 * 60 * 1000;
let app: AppHost | undefined;

afterAll(async () => {
  await app?.stop();
  rmSync(remote, { recursive: true, force: true });
});

it('completes the parts 0.3.0 kept, apart from another target’s snapshot of the same id', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-upgrade-snapshot-parts-'));
  cpSync(fixture, dataDir, { recursive: true });
  rmSync(remote, { recursive: true, force: true });
  await createBareRepository(remote);
  const stoppedAt = Number(readFileSync(join(fixture, STOPPED_AT_FILE), 'utf8'));
  // startAppHost starts its virtual clock at Date.now(): the fixture's time plus the upgrade.
  jest.useFakeTimers({
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  jest.setSystemTime(stoppedAt + UPGRADE_MS);
  app = await startAppHost(twoTargetsConfig(remote), {}, { dataDir });

  const post = (path: string, body: unknown) => app!.http('POST', path, body);
  expect(
    (await post(`/api/v1/targets/staging/snapshots/${SNAPSHOT_ID}/parts`, configMapPart('c'))).status,
  ).toBe(202);
  expect(
    (await post(`/api/v1/targets/staging/snapshots/${SNAPSHOT_ID}/complete`, { ...COMPLETION, parts: 1 }))
      .status,
  ).toBe(202);
  expect(
    (
      await post(`/api/v1/targets/prod/snapshots/${SNAPSHOT_ID}/complete`, {
        ...COMPLETION,
        parts: PROD_PARTS.length,
      })
    ).status,
  ).toBe(202);
  await app.advance(30_000);

  expect((await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n')).toEqual([
    'clusters/prod/shop/configmaps/a.yaml',
    'clusters/prod/shop/configmaps/b.yaml',
    'clusters/staging/shop/configmaps/c.yaml',
  ]);
  for (const target of ['prod', 'staging']) {
    const status = (await app.http('GET', `/api/v1/targets/${target}`)).body;
    expect(status.refusedWrites.count).toBe(0);
    expect(status.publication).toMatchObject({ pendingWrites: 0 });
  }
});
