// The upgrade test of one release: the current code starts on the data folder that release left
// during a Git outage (tests/fixtures/upgrade/<version>/, made by generate-fixture.sh from that
// release's commit) and publishes everything it held exactly once when Git returns. One test file
// per release (upgrade-from-<version>.test.ts), since the app builds its runtime once per process.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { upgradeRemote, upgradeScenario } from './upgrade-scenario';

export const UPGRADE_FIXTURES = join(__dirname, '..', 'fixtures', 'upgrade');

/** Runs the upgrade test of `release`; later tests of the file read the upgraded app and its remote. */
export function upgradeFrom(release: string): { readonly app: AppHost; readonly remote: string } {
  const remote = upgradeRemote(release);
  let app: AppHost | undefined;

  afterAll(async () => {
    await app?.stop();
    rmSync(remote, { recursive: true, force: true });
  });

  it(`publishes the data folder of release ${release} exactly once when Git returns`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), `kubescribe-upgrade-${release}-`));
    cpSync(join(UPGRADE_FIXTURES, release), dataDir, { recursive: true });
    rmSync(remote, { recursive: true, force: true });
    await createBareRepository(remote);
    app = await startAppHost(oneTargetConfig({ url: remote }), {}, { dataDir });

    // The held writes retry on their schedule (at most 5 min apart); the open window closes on its own.
    await app.advance(6 * 60 * 1000);

    const log = await git(remote, 'log', '--reverse', '--format=%H|%an|%s', 'main');
    const commits = log
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    expect(commits.map(([, author]) => author)).toEqual(
      upgradeScenario.commits.map((commit) => commit.author),
    );
    for (const [index, expected] of upgradeScenario.commits.entries()) {
      const [sha, , subject] = commits[index]!;
      const files = (await git(remote, 'show', '--name-only', '--format=', sha!)).trim().split('\n');
      expect(files.sort()).toEqual([...expected.files].sort());
      if (expected.message) expect(subject).toBe(expected.message);
    }
    const save = (await app.http('GET', '/api/v1/targets/prod/saves/release-1')).body;
    expect(save).toMatchObject({ phase: 'Resolved', outcome: 'Committed', commit: commits[1]![0] });
    const status = (await app.http('GET', '/api/v1/targets/prod')).body;
    expect(status.publication).toMatchObject({ pendingWrites: 0, retryAt: null, intakePaused: false });
  });
  return {
    get app() {
      if (!app) throw new Error('the upgrade test starts the app');
      return app;
    },
    remote,
  };
}
