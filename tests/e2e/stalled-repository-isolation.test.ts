// One repository's remote stalls (every Git request to it hangs until kubescribe's call bound) while
// another repository's branch has a change: the other branch still publishes while the stalled
// calls hang, because one repository holds at most `limits.repositoryConcurrency` of the host's
// activity slots (host.json maxConcurrentActivityFunctions: 4 here). Real `git http-backend`
// behind fault proxies; the app on the embedded host with a virtual clock (Git calls in real time).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, startAppHost } from '../support/app/app-host';
import { configMapEvent, filesOn, until } from '../support/app/branch-observations';
import type { GitRequestKind } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

const KINDS: GitRequestKind[] = ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'];
// as many branches on the stalled repository as the host has activity slots
const STALLED_BRANCHES = ['s1', 's2', 's3', 's4'];

let app: AppHost;
let stalled: ProxiedRemote;
let healthy: ProxiedRemote;

beforeAll(async () => {
  stalled = await startProxiedRemote({ name: 'stalled.git' });
  healthy = await startProxiedRemote({ name: 'healthy.git' });
  const window = { idleTimeout: '1s', maxDuration: '5s' };
  app = await startAppHost({
    repositories: [
      { name: 'stalled', url: stalled.url },
      { name: 'healthy', url: healthy.url },
    ],
    targets: [
      ...STALLED_BRANCHES.map((branch) => ({ name: branch, repository: 'stalled', branch, window })),
      { name: 'other', repository: 'healthy', branch: 'main', window },
    ],
    // A call bound longer than the test waits: the stalled calls hang throughout.
    limits: { gitCallTimeout: '2m', publishTimeout: '4m', pushCooldown: '0s' },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  // closing the stalled remote's connections ends its hanging calls, so the host can stop
  await stalled?.stop();
  await app?.stop();
  await healthy?.stop();
});

async function post(target: string, name: string): Promise<void> {
  const response = await app.http('POST', `/api/v1/targets/${target}/events`, {
    events: [configMapEvent(name)],
  });
  expect(response.status).toBe(202);
}

/** The target's window has closed and its change waits for the remote. */
async function waiting(target: string): Promise<boolean> {
  const { body } = await app.http('GET', `/api/v1/targets/${target}`);
  return body.window.open === false && body.publication.pendingWrites > 0;
}

it("publishes another repository's change while every call to a stalled repository hangs", async () => {
  for (const kind of KINDS) stalled.proxy.inject({ on: kind, fault: { kind: 'stall' }, times: 1_000_000 });
  for (const branch of STALLED_BRANCHES) await post(branch, `change-on-${branch}`);
  app.tick(1000);
  // every branch of the stalled repository has closed its window, and calls to the remote hang
  await until(
    async () =>
      stalled.proxy.heldOpen() >= 1 && (await Promise.all(STALLED_BRANCHES.map(waiting))).every((yes) => yes),
    "the stalled repository's branches wait for it",
  );

  await post('other', 'change-elsewhere');
  app.tick(1000);
  await until(
    async () => (await filesOn(healthy.remote)).includes('shop/configmaps/change-elsewhere.yaml'),
    "the other repository's change is pushed",
    20_000,
  );
  // published while the stalled repository's calls still hang, not after their bound
  expect(stalled.proxy.heldOpen()).toBeGreaterThan(0);
  for (const branch of STALLED_BRANCHES) expect(await waiting(branch)).toBe(true);
});
