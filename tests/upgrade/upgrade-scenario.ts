// What the upgrade fixtures hold: one scenario, posted by a released version during a Git outage
// (release-scenario.ts) and published by the current code (upgrade.test.ts).

/**
 * The repository a release's scenario publishes to: absent while its fixture is made (Git down),
 * created by its upgrade test. One per release, so the upgrade tests of two releases can run at once
 * (the branch key, stored in the fixture, is made from this URL).
 */
export function upgradeRemote(release: string): string {
  return `/tmp/kubescribe-upgrade-fixture/${release}/state.git`;
}

interface Step {
  post?: { path: string; body: unknown; status: number };
  advanceMs?: number;
}

function change(author: string, name: string, resourceVersion: number) {
  return {
    type: 'MODIFIED',
    resource: 'configmaps',
    author: { username: author },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', resourceVersion: String(resourceVersion) },
      data: { owner: author },
    },
  };
}

const events = (...items: unknown[]) => ({
  path: '/api/v1/targets/prod/events',
  body: { events: items },
  status: 202,
});

/**
 * alice's window closes and fails to publish (retried); bob's window closes with the save
 * `release-1` attached (held); carol's window is still open when the host stops, 2 s after bob's
 * closed, while the driver waits for its next retry.
 */
export const upgradeScenario: {
  steps: Step[];
  commits: { author: string; files: string[]; message?: string }[];
} = {
  steps: [
    { post: events(change('alice', 'first', 11), change('alice', 'second', 12)), advanceMs: 6000 },
    { post: events(change('bob', 'third', 13)) },
    {
      post: {
        path: '/api/v1/targets/prod/saves',
        body: { id: 'release-1', message: 'Release 1', author: { username: 'bob' } },
        status: 202,
      },
      advanceMs: 6000,
    },
    { post: events(change('carol', 'fourth', 14)), advanceMs: 2000 },
  ],
  commits: [
    {
      author: 'alice',
      files: ['clusters/prod/shop/configmaps/first.yaml', 'clusters/prod/shop/configmaps/second.yaml'],
    },
    { author: 'bob', files: ['clusters/prod/shop/configmaps/third.yaml'], message: 'Release 1' },
    { author: 'carol', files: ['clusters/prod/shop/configmaps/fourth.yaml'] },
  ],
};
