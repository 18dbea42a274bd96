// The real app (functions/index.ts) on the embedded host in a child process that a test can kill -9
// and start again on the same data folder, in front of a real `git http-backend` behind a fault
// proxy. Child hosts run on the real clock: scenarios use second-long windows and retries.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildHost, spawnHost } from '../embedded/child-host';
import { createBareRepo } from '../git/create-bare-repo';
import { type FaultProxy, startFaultProxy } from '../git/start-fault-proxy';
import { startGitServer } from '../git/start-git-server';
import { git } from './app-host';

const APP_ENTRY = join(__dirname, '..', '..', '..', 'functions', 'index.ts');

/** A call's answer: the status and the JSON body, read loosely and asserted on with matchers. */
// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert their shape with matchers.
export type CrashAppResponse = { status: number; body: any };

export interface CrashScenario {
  /** The bare repository's folder, for the `git` CLI. */
  remote: string;
  proxy: FaultProxy;
  /** (Re)starts the host on the scenario's data folder. */
  start(): Promise<ChildHost>;
  /** kill -9 of the running host; resolves once it is gone. */
  kill(): Promise<void>;
  /** Posts ADDED ConfigMaps `shop/<name>` authored by `author` (alice), expecting 202. */
  post(names: string[], author?: string): Promise<void>;
  /** Calls `/api/v1/targets/prod<path>` on the running host. */
  call(method: string, path: string, body?: object): Promise<CrashAppResponse>;
  /** The scenario's repository URL, through its proxy. */
  url: string;
  /** Another seeded repository on the same Git server, behind a proxy of its own. */
  anotherRemote(name: string): Promise<{ remote: string; proxy: FaultProxy; url: string }>;
  /** Rewrites the configuration's repositories (target `prod` names `state`): read at the next start. */
  configure(repositories: { name: string; url: string }[]): void;
}

/**
 * Registers the shared Git server for the test file (beforeAll/afterAll) and returns how to make a
 * scenario: a fresh repository seeded with `README.md`, its proxy and a host data folder, with one
 * target `prod` on `main` at `.` (by default window 1 s idle, 5 s at most, retries 1 s to 2 s; no
 * push cooldown).
 */
export function crashScenarios(): (
  name: string,
  options?: {
    retry?: { initial: string; max: string };
    window?: { idleTimeout: string; maxDuration: string };
  },
) => Promise<CrashScenario> {
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
  return async (
    name,
    { retry = { initial: '1s', max: '2s' }, window = { idleTimeout: '1s', maxDuration: '5s' } } = {},
  ) => {
    const remote = await createBareRepo({ root, name: `${name}.git`, files: { 'README.md': 'state\n' } });
    const proxy = await startFaultProxy({ upstream: server.url });
    proxies.push(proxy);
    const dataDir = mkdtempSync(join(tmpdir(), `ks-crash-${name}-`));
    const configFile = join(dataDir, 'kubescribe.json');
    const url = `${proxy.url}/${name}.git`;
    const configure = (repositories: { name: string; url: string }[]) =>
      writeFileSync(
        configFile,
        JSON.stringify({
          repositories,
          targets: [
            {
              name: 'prod',
              repository: 'state',
              branch: 'main',
              path: '.',
              window,
            },
          ],
          limits: { pushCooldown: '0s', retry, gitCallTimeout: '10s', publishTimeout: '30s' },
          server: { auth: 'disabled' },
        }),
      );
    configure([{ name: 'state', url }]);
    const env = {
      KUBESCRIBE_CONFIG: configFile,
      KUBESCRIBE_DATA: dataDir,
      KUBESCRIBE_GIT_CACHE: join(dataDir, 'cache'),
      // publications run on an activity thread, as under `npm start`
      KUBESCRIBE_ACTIVITY_THREADS: '1',
    };
    let host: ChildHost | undefined;
    const call = async (method: string, path: string, body?: object): Promise<CrashAppResponse> => {
      const response = await fetch(`${host!.url}/api/v1/targets/prod${path}`, {
        method,
        ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: await response.json() };
    };
    return {
      remote,
      proxy,
      url,
      configure,
      async anotherRemote(other) {
        const otherRemote = await createBareRepo({
          root,
          name: `${other}.git`,
          files: { 'README.md': 'state\n' },
        });
        const otherProxy = await startFaultProxy({ upstream: server.url });
        proxies.push(otherProxy);
        return { remote: otherRemote, proxy: otherProxy, url: `${otherProxy.url}/${other}.git` };
      },
      async start() {
        host = await spawnHost(APP_ENTRY, dataDir, env);
        hosts.push(host);
        return host;
      },
      async kill() {
        host?.child.kill('SIGKILL');
        await host?.exited;
      },
      async post(names, author = 'alice') {
        const response = await call('POST', '/events', {
          events: names.map((object, index) => ({
            type: 'ADDED',
            resource: 'configmaps',
            author: { username: author },
            object: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: object, namespace: 'shop', resourceVersion: String(index + 1) },
              data: { name: object },
            },
          })),
        });
        expect(response.status).toBe(202);
      },
      call,
    };
  };
}

/** Polls `condition` in real time until it holds (bounded): a child process runs on the real clock. */
export async function until(
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

/** The `Kubescribe-Write` trailers of the commits in `range`, newest first. */
export async function trailersOf(remote: string, range: string): Promise<string[]> {
  return (await git(remote, 'log', '--format=%(trailers:key=Kubescribe-Write,valueonly)', range))
    .split('\n')
    .filter(Boolean);
}
