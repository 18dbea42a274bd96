// S13 of the seed's validation table ("Parent disappears again during recovery: an earlier
// publication cannot clear newer retained writes"), with the earlier publication really in flight.
// The target writes branch `feature`, which starts from `release`. Parent recovery opens (no
// `release`), the parent returns and the publication of the first write starts; its push is held at
// the proxy while `release` is deleted again and a newer change is posted. When the held push lands,
// only the write it carried is cleared: the newer one stays pending and is published once, on the
// branch the landed push created. Real `git http-backend` behind a fault proxy; the app on the
// embedded host with a virtual clock (Git calls are bounded on the real clock).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, startAppHost } from '../support/app/app-host';
import {
  branchExists,
  configMapEvent,
  filesOn,
  until,
  writeTrailers,
} from '../support/app/branch-observations';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;

beforeAll(async () => {
  served = await startProxiedRemote({ files: { 'README.md': 'state\n' } });
  app = await startAppHost({
    repositories: [{ name: 'state', url: `${served.proxy.url}/state.git` }],
    targets: [
      {
        name: 'feature',
        repository: 'state',
        branch: 'feature',
        parentBranch: 'release',
        path: 'clusters/feature',
        window: { idleTimeout: '1s', maxDuration: '5s' },
      },
    ],
    // the cooldown after the held push lands leaves time to see the newer write still pending
    limits: {
      gitCallTimeout: '20s',
      publishTimeout: '40s',
      retry: { initial: '10s', max: '40s' },
      pushCooldown: '30s',
    },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

async function post(name: string, author = 'alice'): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/feature/events', {
    events: [configMapEvent(name, author)],
  });
  expect(response.status).toBe(202);
}

async function publication() {
  return (await app.http('GET', '/api/v1/targets/feature')).body.publication;
}

/**
 * The target's unpublished changes now (the status routes read through a one-second cache on the
 * frozen clock): each name, with ` w` once it is in a decided write.
 */
async function pendingPaths(): Promise<string[]> {
  const { body } = await app.http('GET', '/api/v1/targets/feature/pending');
  return body.items.map(
    (item: { path: string; writeId: string | null }) =>
      `${item.path.replace(/^.*\/(.*)\.yaml$/, '$1')}${item.writeId ? ' w' : ''}`,
  );
}

const pushes = () => served.proxy.requests.filter((request) => request.kind === 'push').length;
const file = (name: string) => `clusters/feature/shop/configmaps/${name}.yaml`;

it('given the parent deleted while an earlier push is in flight, the push clears only its own write and the newer one is published once', async () => {
  const { remote, proxy } = served;
  await post('first');
  await app.advance(5000);
  expect(await publication()).toMatchObject({ parentMissing: true, pendingWrites: 1 });

  // the parent returns; the probe at the retry deadline finds it and the first write's push starts
  await git(remote, 'branch', 'release', 'main');
  let land = () => {};
  const held = new Promise<void>((resolve) => {
    land = resolve;
  });
  proxy.inject({ on: 'push', fault: { kind: 'before', run: () => held } });
  app.tick(10_000);
  await until(() => pushes() === 1, 'the first push reaches the proxy');

  // meanwhile the parent goes again and a newer change is decided
  await git(remote, 'branch', '-D', 'release');
  // Window deadlines wait for the driver, which is in the held publication; bob's change decides
  // alice's window at once (a window holds one author's changes).
  await post('second');
  await post('third', 'bob');
  await until(
    async () => JSON.stringify(await pendingPaths()) === JSON.stringify(['first w', 'second w', 'third']),
    'the newer write is decided',
  );
  expect(await branchExists(remote, 'feature')).toBe(false);

  land();
  await until(async () => (await pendingPaths())[0] !== 'first w', 'the held push is recorded');
  await app.host.waitForIdle();
  expect(await filesOn(remote, 'feature')).toContain(file('first'));
  expect(await filesOn(remote, 'feature')).not.toContain(file('second'));
  expect(await pendingPaths()).toEqual(['second w', 'third']);
  expect(pushes()).toBe(1);

  await app.advance(35_000);
  expect(await publication()).toMatchObject({ pendingWrites: 0, retryAt: null, parentMissing: false });
  expect(await filesOn(remote, 'feature')).toEqual(
    expect.arrayContaining([file('first'), file('second'), file('third')]),
  );
  expect(pushes()).toBe(2);
  const trailers = await writeTrailers(remote, 'feature');
  expect(trailers).toHaveLength(3);
  expect(new Set(trailers).size).toBe(3);
  await git(remote, 'fsck', '--strict');
});
