// The seed's rows that need a real process restart: "worker is canceled during a failed attempt"
// (the host killed with SIGKILL while Git is down) and "policy changes during a window" (the
// configuration file changed between two runs of the host). The host runs as a child process on
// the real clock, so schedules are short and waits are bounded polls. Real `git http-backend`
// behind a fault proxy.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AppResponse, git } from '../support/app/app-host';
import { configMapEvent, filesOn, history, until, writeTrailers } from '../support/app/branch-observations';
import { type ChildHost, spawnHost } from '../support/embedded/child-host';
import { createBareRepo } from '../support/git/create-bare-repo';
import { type FaultProxy, type GitRequestKind, startFaultProxy } from '../support/git/start-fault-proxy';
import { startGitServer } from '../support/git/start-git-server';

const APP_ENTRY = join(__dirname, '..', '..', 'functions', 'index.ts');
const KINDS: GitRequestKind[] = ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'];

let server: { url: string; stop(): Promise<void> };
let root: string;
const hosts: ChildHost[] = [];
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ks-restart-'));
  server = await startGitServer({ root });
});

afterAll(async () => {
  for (const host of hosts) host.child.kill('SIGKILL');
  await Promise.all(hosts.map((host) => host.exited));
  for (const proxy of proxies) await proxy.stop();
  await server?.stop();
});

type Window = { idleTimeout: string; maxDuration: string };

/** A repository behind its own proxy, and a host data folder whose configuration `configure` (re)writes. */
async function scenario(name: string, window: Window, gitCallTimeout = '5s') {
  const remote = await createBareRepo({ root, name: `${name}.git`, files: { 'README.md': 'state\n' } });
  const proxy = await startFaultProxy({ upstream: server.url });
  proxies.push(proxy);
  const dataDir = mkdtempSync(join(tmpdir(), `ks-restart-${name}-`));
  const configFile = join(dataDir, 'kubescribe.json');
  const configure = (targetWindow: Window) =>
    writeFileSync(
      configFile,
      JSON.stringify({
        repositories: [{ name: 'state', url: `${proxy.url}/${name}.git` }],
        targets: [{ name: 'prod', repository: 'state', branch: 'main', window: targetWindow }],
        limits: {
          pushCooldown: '0s',
          retry: { initial: '2s', max: '4s' },
          gitCallTimeout,
          publishTimeout: '20s',
        },
        server: { auth: 'disabled' },
      }),
    );
  configure(window);
  const env = {
    KUBESCRIBE_CONFIG: configFile,
    KUBESCRIBE_DATA: dataDir,
    KUBESCRIBE_GIT_CACHE: join(dataDir, 'cache'),
  };
  let host: ChildHost | undefined;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${host!.url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as AppResponse['body'] };
  };
  return {
    remote,
    proxy,
    configure,
    call,
    async start() {
      host = await spawnHost(APP_ENTRY, dataDir, env);
      hosts.push(host);
    },
    async kill() {
      host?.child.kill('SIGKILL');
      await host?.exited;
    },
    async post(names: string[]) {
      const response = await call('POST', '/api/v1/targets/prod/events', {
        events: names.map((object) => configMapEvent(object)),
      });
      expect(response.status).toBe(202);
    },
    async publication() {
      return (await call('GET', '/api/v1/targets/prod')).body;
    },
  };
}

async function expectEachWriteOnce(remote: string): Promise<void> {
  const trailers = await writeTrailers(remote);
  expect(trailers.length).toBeGreaterThan(0);
  expect(new Set(trailers).size).toBe(trailers.length);
  await git(remote, 'fsck', '--strict');
}

describe('a host killed while Git is down', () => {
  it('given failed attempts before the kill, after the restart it retries on its schedule, not in a burst, and publishes everything once Git returns', async () => {
    const run = await scenario('outage', { idleTimeout: '1s', maxDuration: '2s' });
    await run.start();
    await run.post(['before-outage']);
    await until(
      async () => (await filesOn(run.remote)).includes('shop/configmaps/before-outage.yaml'),
      'the first change is published',
    );

    // Git refuses every connection: each attempt is one refused request.
    for (const on of KINDS) run.proxy.inject({ on, fault: { kind: 'refuse' }, times: 100_000 });
    const attempts = () => run.proxy.requests.filter((request) => request.fault === 'refuse').length;
    await run.post(['during-outage']);
    await run.call('POST', '/api/v1/targets/prod/saves', {
      id: 'outage-save',
      message: 'Saved while Git was down',
      author: { username: 'alice' },
    });
    await until(() => attempts() >= 2, 'two attempts have failed');
    await run.kill();

    const beforeRestart = attempts();
    await run.start();
    const restartedAt = performance.now();
    await until(() => attempts() > beforeRestart, 'the restarted host attempts again');
    await sleep(5000);
    const elapsedMs = performance.now() - restartedAt;
    // One attempt on recovery, then the backoff (2s doubling to 4s): a burst would be many more.
    const afterRestart = attempts() - beforeRestart;
    expect(afterRestart).toBeGreaterThanOrEqual(1);
    expect(afterRestart).toBeLessThanOrEqual(1 + Math.ceil(elapsedMs / 2000));
    const status = await run.publication();
    expect(status.publication).toMatchObject({ retryAt: expect.any(String), lastError: expect.any(String) });
    expect(status.publication.pendingWrites).toBeGreaterThan(0);

    run.proxy.reset();
    await until(
      async () => (await run.call('GET', '/api/v1/targets/prod/saves/outage-save')).body.phase === 'Resolved',
      'the held save resolves',
    );
    const saved = (await history(run.remote)).find((commit) => commit.subject === 'Saved while Git was down');
    expect((await run.call('GET', '/api/v1/targets/prod/saves/outage-save')).body).toMatchObject({
      outcome: 'Committed',
      commit: saved?.sha,
    });
    expect(await filesOn(run.remote)).toContain('shop/configmaps/during-outage.yaml');
    await expectEachWriteOnce(run.remote);
    await run.kill();
  });
});

describe('a host killed during an attempt that hangs on Git', () => {
  it('given a push stalled when the host dies, the restarted host is not blocked by the abandoned attempt and publishes each write once', async () => {
    const run = await scenario('canceled', { idleTimeout: '1s', maxDuration: '2s' }, '2s');
    await run.start();
    await run.post(['before-the-stall']);
    await until(
      async () => (await filesOn(run.remote)).includes('shop/configmaps/before-the-stall.yaml'),
      'the first change is published',
    );

    run.proxy.inject({ on: 'push', fault: { kind: 'stall' }, times: 100_000 });
    await run.post(['stalled-when-killed']);
    await until(() => run.proxy.heldOpen() > 0, 'an attempt hangs on its push');
    await run.kill();
    await until(() => run.proxy.heldOpen() === 0, 'the dead host’s connection is gone');

    // Still stalled after the restart: the new attempt gives up at the call bound and schedules a retry.
    await run.start();
    const pushesBefore = run.proxy.requests.filter((request) => request.kind === 'push').length;
    await until(
      async () => (await run.publication()).publication.lastError === 'push timed out after 2000 ms',
      'the restarted host’s attempt times out',
    );
    expect(run.proxy.requests.filter((request) => request.kind === 'push').length).toBeGreaterThan(
      pushesBefore,
    );
    expect((await run.publication()).publication).toMatchObject({ retryAt: expect.any(String) });

    run.proxy.reset();
    await run.post(['after-the-restart']);
    await until(
      async () => (await filesOn(run.remote)).includes('shop/configmaps/after-the-restart.yaml'),
      'the work is published once Git answers',
    );
    expect(await filesOn(run.remote)).toContain('shop/configmaps/stalled-when-killed.yaml');
    await expectEachWriteOnce(run.remote);
    await run.kill();
  });
});

describe('a policy change between two runs of the host', () => {
  it('given a window open under a 2s idle timeout, a restart with a 1m one leaves that window on its own timing; new windows take the new one', async () => {
    const run = await scenario('policy', { idleTimeout: '2s', maxDuration: '3s' });
    await run.start();
    await run.post(['under-old-policy']);
    await until(async () => (await run.publication()).window.open === true, 'the window is open');
    await run.kill();

    run.configure({ idleTimeout: '1m', maxDuration: '10m' });
    await run.start();
    // Under the new timing this window would wait a minute; its snapshotted 3s maximum closes it.
    await until(
      async () => (await filesOn(run.remote)).includes('shop/configmaps/under-old-policy.yaml'),
      'the window opened under the old policy is published',
      20_000,
    );

    await run.post(['under-new-policy']);
    await until(async () => (await run.publication()).window.open === true, 'a new window opens');
    const window = (await run.publication()).window;
    expect(Date.parse(window.closesAt) - Date.now()).toBeGreaterThan(30_000);
    expect(await filesOn(run.remote)).not.toContain('shop/configmaps/under-new-policy.yaml');
    await expectEachWriteOnce(run.remote);
    await run.kill();
  });
});
