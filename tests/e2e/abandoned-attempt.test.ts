// S9 of the seed's validation table ("worker is canceled during a failed attempt: no retry is
// re-armed ... no abandoned task retains checkout access") and H13 of the HA fault table ("old owner
// finishes an in-flight push: replacement recovers outcome, rejects stale transitions"). The host
// gives up on a publication activity at its functionTimeout (host.json: 10 min) while the
// activity's push is still held at the proxy in the same process, as the Functions host abandons an
// invocation it timed out. The branch re-arms one retry, the replacement attempt publishes without
// waiting for the abandoned one, and when the abandoned push finally reaches Git it changes nothing.
// The app on the embedded host with a virtual clock (the host's activity timeout runs on it; Git
// calls are bounded on the real clock), real `git http-backend` behind the fault proxy.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { configMapEvent, filesOn, until, writeTrailers } from '../support/app/branch-observations';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;

beforeAll(async () => {
  served = await startProxiedRemote({ files: { 'README.md': 'state\n' } });
  app = await startAppHost(
    oneTargetConfig({
      url: served.url,
      target: { path: '.', window: { idleTimeout: '1s', maxDuration: '5s' } },
      limits: {
        pushCooldown: '0s',
        retry: { initial: '10s', max: '20s' },
        gitCallTimeout: '60s',
        publishTimeout: '5m',
      },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

async function post(name: string): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/prod/events', { events: [configMapEvent(name)] });
  expect(response.status).toBe(202);
}

const publication = async () => (await app.http('GET', '/api/v1/targets/prod')).body.publication;

it('given an attempt abandoned at the host timeout while its push is held, re-arms one retry, publishes without it, and its late push changes nothing', async () => {
  const { remote, proxy } = served;
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  proxy.inject({ on: 'push', fault: { kind: 'before', run: () => held } });
  const pushes = () => proxy.requests.filter((request) => request.kind === 'push');

  await post('first');
  app.tick(2000);
  await until(() => pushes().length === 1, 'the first push is held at the proxy');

  // past the host's functionTimeout: the host fails the activity, the branch records a failure
  app.tick(10 * 60_000 + 1000);
  await until(
    async () => (await publication()).retryAt !== null,
    'the abandoned attempt is recorded as failed',
  );
  expect((await publication()).pendingWrites).toBe(1);

  // a newer change, then the retry: the replacement carries both and lands them
  await post('second');
  app.tick(11_000);
  await until(
    async () => (await filesOn(remote)).includes('shop/configmaps/second.yaml'),
    'the retry publishes',
  );
  await app.host.waitForIdle();
  const head = await git(remote, 'rev-parse', 'main');
  expect(await filesOn(remote)).toContain('shop/configmaps/first.yaml');

  // the abandoned push reaches Git at last: refused as stale, it changes nothing
  release();
  await until(() => pushes()[0]!.replyBytes > 0, 'the abandoned push is answered');
  app.tick(30_000);
  await app.host.waitForIdle();
  expect(await git(remote, 'rev-parse', 'main')).toBe(head);
  expect(await publication()).toMatchObject({ pendingWrites: 0, retryAt: null });
  const trailers = await writeTrailers(remote);
  expect(trailers).toHaveLength(2);
  expect(new Set(trailers).size).toBe(2);
  await git(remote, 'fsck', '--strict');
});
