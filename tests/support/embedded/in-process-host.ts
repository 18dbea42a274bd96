// Starts the embedded host in the test's own process with a virtual clock and a fresh data folder.
// Test files that use it must map the worker module first (jest's registry bypasses Node's loader):
//   jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, { virtual: true });
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type VirtualClock, virtualClock } from '../../../embedded/clock';
import { type HostHandle, type HostOptions, startHost } from '../../../embedded/host';
import type { LogRecord } from '../../../embedded/log';

/** A host running in the test's process, with helpers. */
export interface TestHost {
  host: HostHandle;
  clock: VirtualClock;
  dataDir: string;
  logs: LogRecord[];
  /** Calls a route of the app (`/api/...`) over real HTTP. */
  http(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
  /** Advances the virtual clock and waits until the host is idle again. */
  advance(ms: number): Promise<void>;
  /** Stops the host and starts a new one on the same data folder (and clock), with `options` changed. */
  restart(options?: Partial<HostOptions>): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a host on the app module `appEntry`. */
export async function startTestHost(appEntry: string, options: Partial<HostOptions> = {}): Promise<TestHost> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-host-'));
  const clock = virtualClock();
  const logs: LogRecord[] = [];
  const start = (changed: Partial<HostOptions> = {}) =>
    startHost({
      appEntry,
      dataDir,
      port: 0,
      clock,
      logger: (level, event, fields) =>
        logs.push({ time: new Date(clock.now()).toISOString(), level, event, ...fields }),
      ...options,
      ...changed,
    });
  const t: TestHost = {
    host: await start(),
    clock,
    dataDir,
    logs,
    async http(method, path, body) {
      const res = await fetch(`${t.host.url}${path}`, {
        method,
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
      await t.host.waitForIdle();
      clock.advance(ms);
      await t.host.waitForIdle();
    },
    async restart(changed) {
      await t.host.stop();
      t.host = await start(changed);
    },
    async stop() {
      await t.host.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}
