// Runs the real kubescribe app (functions/index.ts) on the embedded host in the test's process,
// with a virtual clock that also drives `Date` (the HTTP layer stamps receipt time with it).
// Test files that use it must map the worker module first (jest's registry bypasses Node's loader):
//   jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, { virtual: true });
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { virtualClock } from '../../../embedded/clock';
import {
  type ClientSignalTuning,
  type EngineSemantics,
  engineChoiceFromEnv,
} from '../../../embedded/engine-semantics';
import { type HostHandle, type HostOptions, startHost } from '../../../embedded/host';
import { readHostSettings } from '../../../embedded/host-config';
import type { LogRecord } from '../../../embedded/log';

const run = promisify(execFile);
const APP_ENTRY = join(__dirname, '..', '..', '..', 'functions', 'index.ts');
const HOST_JSON = join(__dirname, '..', '..', '..', 'host.json');

/** A response as the tests read it: the JSON body is asserted on with matchers, not typed. */
// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert their shape with matchers.
export type AppResponse = { status: number; body: any; headers: Headers };

export interface AppHost {
  host: HostHandle;
  dataDir: string;
  logs: LogRecord[];
  /** Calls a route of the app (`/api/...`) over real HTTP; JSON bodies are sent as JSON. */
  http(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<AppResponse>;
  /** Moves the virtual clock (and `Date`) forward and waits until the host is idle again. */
  advance(ms: number): Promise<void>;
  /**
   * Moves the virtual clock (and `Date`) forward without waiting for the host to be idle: for a
   * test in which Git calls hang, so the host is not idle until their bound.
   */
  tick(ms: number): void;
  now(): number;
  /**
   * Stops the host and starts a new one on the same data folder and clock (with another host.json,
   * as a deployment would).
   */
  restart(options?: { hostJsonFile?: string }): Promise<void>;
  stop(): Promise<void>;
}

/** What a test changes in the faithful modes' delivery model (the app's host.json stays). */
export interface AppEngineTiming {
  /** Overrides KUBESCRIBE_ENGINE_SEMANTICS: for a test of one backend's timing. */
  semantics?: EngineSemantics;
  clientSignals?: Partial<ClientSignalTuning>;
  queuePolling?: boolean;
  /** Replaces host.json's storageProvider.maxQueuePollingInterval: to show what another value does. */
  maxQueuePollingIntervalMs?: number;
}

/**
 * Starts the app with `config` (the configuration file's content) and `env` (token variables), on
 * a new data folder or on `dataDir` (one an earlier host, or an earlier release, left).
 * Only one app host per test file: the app builds its runtime once per module registry.
 */
export async function startAppHost(
  config: object,
  env: Record<string, string> = {},
  {
    dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-app-')),
    hostJsonFile = HOST_JSON,
    engine = {},
    server = {},
  }: {
    dataDir?: string;
    hostJsonFile?: string;
    engine?: AppEngineTiming;
    /** The app server's limits and deadlines, when a test is about them. */
    server?: Pick<
      HostOptions,
      'maxConcurrentRequests' | 'maxRequestsPerSource' | 'headersTimeoutMs' | 'requestTimeoutMs'
    >;
  } = {},
): Promise<AppHost> {
  const configFile = join(dataDir, 'kubescribe.json');
  writeFileSync(configFile, JSON.stringify(config));
  Object.assign(process.env, {
    KUBESCRIBE_CONFIG: configFile,
    KUBESCRIBE_DATA: dataDir,
    KUBESCRIBE_GIT_CACHE: join(dataDir, 'git-cache'),
    ...env,
  });
  // Whole seconds keep Git's commit times (seconds) and the branch's instants comparable.
  const clock = virtualClock(Math.floor(Date.now() / 1000) * 1000);
  jest.useFakeTimers({
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  jest.setSystemTime(clock.now());
  const logs: LogRecord[] = [];
  // The app runs on the real engine's weaker promises by default (Azure Storage: client signals
  // reordered over a wider window than the host's default and delivered twice), with the app's own
  // host.json (its functionTimeout among them). KUBESCRIBE_ENGINE_SEMANTICS=exact|dts chooses
  // another; tests/embedded cover `exact` with hosts of their own.
  const fromEnv = engineChoiceFromEnv();
  const { semantics = fromEnv.semantics ?? 'azure-storage' } = engine;
  const { seed } = fromEnv;
  // The app's orchestration versioning always (a deployment's drivers are versioned by it).
  const hostJsonOf = (file: string) => {
    const appSettings = readHostSettings(file);
    const { defaultVersion, versionMatchStrategy, versionFailureStrategy } = appSettings;
    return semantics === 'exact'
      ? { maxConcurrentActivities: 4, defaultVersion, versionMatchStrategy, versionFailureStrategy }
      : {
          ...appSettings,
          maxConcurrentActivities: 4,
          ...(engine.maxQueuePollingIntervalMs === undefined
            ? {}
            : { maxQueuePollingIntervalMs: engine.maxQueuePollingIntervalMs }),
        };
  };
  let hostJson = hostJsonOf(hostJsonFile);
  const start = () =>
    startHost({
      appEntry: APP_ENTRY,
      dataDir,
      port: 0,
      clock,
      hostJson,
      semantics,
      seed,
      ...server,
      ...(semantics === 'exact'
        ? {}
        : {
            clientSignals: { reorderWindow: 8, duplicateProbability: 0.2, ...engine.clientSignals },
            queuePolling: engine.queuePolling,
          }),
      logger: (level, event, fields) =>
        logs.push({ time: new Date(clock.now()).toISOString(), level, event, ...fields }),
    });
  const app: AppHost = {
    host: await start(),
    dataDir,
    logs,
    async http(method, path, body, headers = {}) {
      const res = await fetch(`${app.host.url}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async advance(ms) {
      await app.host.waitForIdle();
      // Step by at most a second so that each deadline fires at its own time, as it would live.
      for (let left = ms; left > 0; left -= 1000) {
        const step = Math.min(1000, left);
        jest.setSystemTime(clock.now() + step);
        clock.advance(step);
        await app.host.waitForIdle();
      }
    },
    tick(ms) {
      jest.setSystemTime(clock.now() + ms);
      clock.advance(ms);
    },
    now: () => clock.now(),
    async restart(options = {}) {
      await app.host.stop();
      if (options.hostJsonFile) hostJson = hostJsonOf(options.hostJsonFile);
      app.host = await start();
    },
    async stop() {
      await app.host.stop();
      jest.useRealTimers();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return app;
}

/**
 * The configuration most end-to-end tests run: one repository `state` at `url` (committer
 * `kubescribe`) and one target `prod` on its `main` under `clusters/prod` with a 5 s idle window,
 * auth disabled. `target` and `limits` set what a test is about.
 */
export function oneTargetConfig({
  url,
  target = {},
  limits,
}: {
  url: string;
  target?: Record<string, unknown>;
  limits?: Record<string, unknown>;
}): object {
  return {
    repositories: [
      { name: 'state', url, committer: { name: 'kubescribe', email: 'kubescribe@example.invalid' } },
    ],
    targets: [
      {
        name: 'prod',
        repository: 'state',
        branch: 'main',
        path: 'clusters/prod',
        window: { idleTimeout: '5s', maxDuration: '1m' },
        ...target,
      },
    ],
    ...(limits ? { limits } : {}),
    server: { auth: 'disabled' },
  };
}

/** Creates an empty bare repository whose default branch is `main`. */
export async function createBareRepository(path: string): Promise<string> {
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', path]);
  return path;
}

/** Runs the real `git` CLI (asynchronously: a synchronous call could block a server in this process). */
export async function git(gitDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${gitDir}`, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * Starts the app, for the whole test file, on a new bare repository (`configure` makes the
 * configuration from its path) and stops both afterwards. Read `app` and `remote` inside tests.
 */
export function appOnNewRepository(configure: (url: string) => object = (url) => oneTargetConfig({ url })): {
  readonly app: AppHost;
  readonly remote: string;
} {
  let app: AppHost | undefined;
  let remote = '';
  beforeAll(async () => {
    remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'kubescribe-e2e-')), 'state.git'));
    app = await startAppHost(configure(remote));
  });
  afterAll(async () => {
    await app?.stop();
    if (remote) rmSync(join(remote, '..'), { recursive: true, force: true });
  });
  return {
    get app() {
      if (!app) throw new Error('the app starts in beforeAll');
      return app;
    },
    get remote() {
      return remote;
    },
  };
}
