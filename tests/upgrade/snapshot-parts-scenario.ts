// What the snapshot-parts upgrade fixtures hold: two targets on one branch, and two parts of prod's
// snapshot `resync-1` posted (not completed) by a release that kept parts by the bare id
// (release-snapshot-parts-scenario.ts); the current code completes it after the upgrade while
// staging sends a snapshot of the same id (upgrade-from-0.3.0-snapshot-parts.test.ts).

/** The scenario's fixture of `release`: tests/fixtures/upgrade/<release>-snapshot-parts. */
export const snapshotPartsFixture = (release: string) => `${release}-snapshot-parts`;

/** The wall time the release's host stopped at, written beside the data folder (ms since the epoch). */
export const STOPPED_AT_FILE = 'stopped-at.txt';

export const SNAPSHOT_ID = 'resync-1';

/** Two targets of one repository branch, each in its own folder. */
export function twoTargetsConfig(url: string): object {
  return {
    repositories: [
      { name: 'state', url, committer: { name: 'kubescribe', email: 'kubescribe@example.invalid' } },
    ],
    targets: ['prod', 'staging'].map((name) => ({
      name,
      repository: 'state',
      branch: 'main',
      path: `clusters/${name}`,
      window: { idleTimeout: '5s', maxDuration: '1m' },
    })),
    server: { auth: 'disabled' },
  };
}

export function configMapPart(...names: string[]): { objects: unknown[] } {
  return {
    objects: names.map((name) => ({
      resource: 'configmaps',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { name } },
    })),
  };
}

/** prod's parts, posted by the release: one object each. */
export const PROD_PARTS = [configMapPart('a'), configMapPart('b')];

export const COMPLETION = {
  scope: { group: '', resource: 'configmaps', namespace: 'shop' },
  revision: '1331',
};
