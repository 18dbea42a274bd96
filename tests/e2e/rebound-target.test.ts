// H12 of the HA fault table (docs/architecture.md, "What survives what"): a target's repository URL
// changes between two runs of the host while work admitted for the old URL is pending. Upstream's
// rule ("target or provider recreated: old work cannot bind by name"): nothing of the held work
// reaches the new repository, and its branch says why, until an operator configures the old URL
// again (under any name); then it is published where it was admitted. The child host is killed and
// started again on a rewritten configuration (the app reads it once per process); real
// `git http-backend` behind fault proxies, one per repository, on the real clock.
import { git } from '../support/app/app-host';
import { crashScenarios, trailersOf, until } from '../support/app/crash-scenario';
import type { GitRequestKind } from '../support/git/start-fault-proxy';

const scenario = crashScenarios();
const KINDS: GitRequestKind[] = ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'];

const files = async (remote: string) =>
  (await git(remote, 'ls-tree', '-r', '--name-only', 'main'))
    .split('\n')
    .filter((path) => path.endsWith('.yaml'));

it('given the repository URL changed with work pending, sends none of it to the new repository until the old URL is configured again', async () => {
  const run = await scenario('before-move');
  const moved = await run.anotherRemote('after-move');
  for (const on of KINDS) run.proxy.inject({ on, fault: { kind: 'refuse' }, times: 100_000 });
  let host = await run.start();
  const admitted = await run.call('POST', '/events', {
    events: [
      {
        type: 'ADDED',
        resource: 'configmaps',
        author: { username: 'alice' },
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: 'shop' } },
      },
    ],
  });
  expect(admitted.status).toBe(202);
  const branch: string = admitted.body.branch;
  await until(() => run.proxy.requests.some((request) => request.fault === 'refuse'), 'an attempt fails');
  await run.kill();

  // the repository `state` now points at another URL
  run.configure([{ name: 'state', url: moved.url }]);
  host = await run.start();
  await run.post(['fresh']);
  await until(
    async () => (await files(moved.remote)).includes('shop/configmaps/fresh.yaml'),
    'new work lands',
  );
  const held = async () => (await fetch(`${host.url}/api/v1/branches/${branch}`)).json();
  const refusedBefore = run.proxy.requests.length;
  // the old branch retries (1 s, 2 s) after the restart: wait for an attempt's outcome
  await until(async () => {
    const { publication } = await held();
    return publication.pendingWrites === 0 || publication.lastError?.includes('is held') === true;
  }, 'an attempt of the old branch');
  expect(await files(moved.remote)).toEqual(['shop/configmaps/fresh.yaml']);
  expect(JSON.stringify((await held()).conditions)).toContain('is held');
  expect((await held()).publication.pendingWrites).toBe(1);
  expect(run.proxy.requests.length).toBe(refusedBefore);
  await run.kill();

  // the operator keeps the old URL under another name, and the old repository answers again
  run.configure([
    { name: 'state', url: moved.url },
    { name: 'state-before-move', url: run.url },
  ]);
  run.proxy.reset();
  await run.start();
  await until(
    async () => (await files(run.remote)).includes('shop/configmaps/held.yaml'),
    'the held work lands',
  );
  expect(await files(run.remote)).toEqual(['shop/configmaps/held.yaml']);
  expect(await files(moved.remote)).toEqual(['shop/configmaps/fresh.yaml']);
  expect(await trailersOf(moved.remote, 'main')).toHaveLength(1);
  expect(await trailersOf(run.remote, 'main')).toHaveLength(1);
});
