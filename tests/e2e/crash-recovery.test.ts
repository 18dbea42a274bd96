// kill -9 of the embedded host running the real app, at the points where a crash could lose or
// duplicate work; after a restart everything acknowledged is published exactly once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { git } from '../support/app/app-host';
import { type ChildHost, spawnHost } from '../support/embedded/child-host';
import { createBareRepo } from '../support/git/create-bare-repo';
import { type FaultProxy, startFaultProxy } from '../support/git/start-fault-proxy';
import { startGitServer } from '../support/git/start-git-server';

const APP_ENTRY = join(__dirname, '..', '..', 'functions', 'index.ts');

let server: { url: string; stop(): Promise<void> };
let root: string;
const hosts: ChildHost[] = [];
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ks-crash-'));
  server = await startGitServer({ root });
});

afterAll(async () => {
  for (const host of hosts) host.child.kill('SIGKILL');
  for (const proxy of proxies) await proxy.stop();
  await server?.stop();
});

/** A fresh repository, proxy and host data folder; `start()` (re)starts the host on them. */
async function scenario(name: string) {
  const remote = await createBareRepo({ root, name: `${name}.git`, files: { 'README.md': 'state\n' } });
  const proxy = await startFaultProxy({ upstream: server.url });
  proxies.push(proxy);
  const dataDir = mkdtempSync(join(tmpdir(), `ks-crash-${name}-`));
  const configFile = join(dataDir, 'kubescribe.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      repositories: [{ name: 'state', url: `${proxy.url}/${name}.git` }],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: '.',
          window: { idleTimeout: '1s', maxDuration: '5s' },
        },
      ],
      limits: {
        pushCooldown: '0s',
        retry: { initial: '1s', max: '2s' },
        gitCallTimeout: '10s',
        publishTimeout: '30s',
      },
      server: { auth: 'disabled' },
    }),
  );
  const env = {
    KUBESCRIBE_CONFIG: configFile,
    KUBESCRIBE_DATA: dataDir,
    KUBESCRIBE_GIT_CACHE: join(dataDir, 'cache'),
    // publications run on an activity thread, as under `npm start`
    KUBESCRIBE_ACTIVITY_THREADS: '1',
  };
  let host: ChildHost | undefined;
  const start = async () => {
    host = await spawnHost(APP_ENTRY, dataDir, env);
    hosts.push(host);
    return host;
  };
  const kill = async () => {
    host?.child.kill('SIGKILL');
    await host?.exited;
  };
  const post = async (names: string[]) => {
    const response = await fetch(`${host!.url}/api/v1/targets/prod/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: names.map((object, index) => ({
          type: 'ADDED',
          resource: 'configmaps',
          author: { username: 'alice' },
          object: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: object, namespace: 'shop', resourceVersion: String(index + 1) },
            data: { name: object },
          },
        })),
      }),
    });
    expect(response.status).toBe(202);
  };
  return { remote, proxy, start, kill, post };
}

async function until(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 45_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

async function publishedFiles(remote: string): Promise<string[]> {
  return (await git(remote, 'ls-tree', '-r', '--name-only', 'main'))
    .split('\n')
    .filter((path) => path.endsWith('.yaml'));
}

async function expectPublishedExactlyOnce(remote: string, names: string[]): Promise<void> {
  await until(
    async () => (await publishedFiles(remote)).length === names.length,
    `${names.length} files are published`,
  );
  expect(await publishedFiles(remote)).toEqual(names.map((name) => `shop/configmaps/${name}.yaml`).sort());
  const trailers = (await git(remote, 'log', '--format=%(trailers:key=Kubescribe-Write,valueonly)', 'main'))
    .split('\n')
    .filter(Boolean);
  expect(trailers.length).toBeGreaterThan(0);
  expect(new Set(trailers).size).toBe(trailers.length);
  await git(remote, 'fsck', '--strict');
}

describe('a crash of the host', () => {
  it('during an open window loses nothing acknowledged', async () => {
    const run = await scenario('window');
    await run.start();
    await run.post(['a', 'b', 'c']);
    await run.kill();
    expect(await publishedFiles(run.remote)).toEqual([]);
    await run.start();
    await expectPublishedExactlyOnce(run.remote, ['a', 'b', 'c']);
  });

  it('during a push (before the remote received it) publishes once after the restart', async () => {
    const run = await scenario('push');
    run.proxy.inject({ on: 'push', fault: { kind: 'stall' }, times: 1 });
    await run.start();
    await run.post(['d', 'e']);
    await until(() => run.proxy.requests.some((request) => request.kind === 'push'), 'the push starts');
    await run.kill();
    await run.start();
    await expectPublishedExactlyOnce(run.remote, ['d', 'e']);
  });

  it('after a push landed but before its result was recorded publishes no duplicate', async () => {
    const run = await scenario('reply');
    run.proxy.inject({ on: 'push', fault: { kind: 'stallBody' }, times: 1 });
    await run.start();
    await run.post(['f', 'g']);
    await until(async () => (await publishedFiles(run.remote)).length === 2, 'the push lands on the remote');
    await run.kill();
    const head = await git(run.remote, 'rev-parse', 'main');
    await run.start();
    await run.post(['h']);
    await expectPublishedExactlyOnce(run.remote, ['f', 'g', 'h']);
    expect(await git(run.remote, 'rev-list', '--count', `${head.trim()}..main`)).toBe('1\n');
  });
});
