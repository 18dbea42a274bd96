// Upgrades: the current code starts on the data folder each release left during a Git outage
// (tests/fixtures/upgrade/<version>/, made by generate-fixture.sh from that release's commit) and
// publishes everything it held exactly once, when Git returns.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { UPGRADE_REMOTE, upgradeScenario } from './upgrade-scenario';

const FIXTURES = join(__dirname, '..', 'fixtures', 'upgrade');
const releases = readdirSync(FIXTURES).sort();

let app: AppHost | undefined;

afterEach(async () => {
  await app?.stop();
  app = undefined;
  rmSync(UPGRADE_REMOTE, { recursive: true, force: true });
});

it('has a fixture for every release', () => {
  expect(releases).toContain('0.1.0');
});

describe.each(releases)('the data folder of release %s', (release) => {
  it('is published exactly once by the current code when Git returns', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), `kubescribe-upgrade-${release}-`));
    cpSync(join(FIXTURES, release), dataDir, { recursive: true });
    rmSync(UPGRADE_REMOTE, { recursive: true, force: true });
    await createBareRepository(UPGRADE_REMOTE);
    app = await startAppHost(oneTargetConfig({ url: UPGRADE_REMOTE }), {}, { dataDir });

    // The held writes retry on their schedule (at most 5 min apart); the open window closes on its own.
    await app.advance(6 * 60 * 1000);

    const log = await git(UPGRADE_REMOTE, 'log', '--reverse', '--format=%H|%an|%s', 'main');
    const commits = log
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    expect(commits.map(([, author]) => author)).toEqual(
      upgradeScenario.commits.map((commit) => commit.author),
    );
    for (const [index, expected] of upgradeScenario.commits.entries()) {
      const [sha, , subject] = commits[index]!;
      const files = (await git(UPGRADE_REMOTE, 'show', '--name-only', '--format=', sha!)).trim().split('\n');
      expect(files.sort()).toEqual([...expected.files].sort());
      if (expected.message) expect(subject).toBe(expected.message);
    }
    const save = (await app.http('GET', '/api/v1/targets/prod/saves/release-1')).body;
    expect(save).toMatchObject({ phase: 'Resolved', outcome: 'Committed', commit: commits[1]![0] });
    const status = (await app.http('GET', '/api/v1/targets/prod')).body;
    expect(status.publication).toMatchObject({ pendingWrites: 0, retryAt: null, intakePaused: false });
  });
});
