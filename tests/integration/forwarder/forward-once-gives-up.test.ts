// `forward --once` against a cluster it cannot reach: a bounded number of attempts, then it ends
// with the last failure (the CLI exits 2), where a long-running forwarder keeps retrying.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForwardGaveUp } from '../../../shared/forwarder/errors';
import { ONCE_MAX_ATTEMPTS } from '../../../shared/forwarder/scope-session';
import { fakeConnection, type RunningForwarder, startForwarder } from './support/forwarder-harness';
import { eventually } from './support/manual-delay';

let dir: string;
let forwarder: RunningForwarder | undefined;
let unreachable: string;

beforeAll(async () => {
  // A port that was just free: nothing listens there, so every connection is refused at once.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  unreachable = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
  await new Promise((resolve) => probe.close(resolve));
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ks-once-'));
});
afterEach(async () => {
  await forwarder?.stop().catch(() => {});
  forwarder = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function start(once: boolean): RunningForwarder {
  forwarder = startForwarder({
    config: {
      kubescribe: { url: 'http://127.0.0.1:9/unused', target: 'prod' },
      resources: [{ group: 'apps', version: 'v1', resource: 'deployments' }],
      cursorFile: join(dir, 'cursors.json'),
    },
    connection: fakeConnection(unreachable, 'kube-token'),
    once,
  });
  return forwarder;
}

it('given --once and a cluster that refuses every connection, it gives up after the bounded attempts with the last failure', async () => {
  const running = start(true);
  for (let released = 0; released < ONCE_MAX_ATTEMPTS - 1; released++) {
    await eventually(() => running.waits.held.length === 1, 'a backoff wait');
    running.waits.releaseAll();
  }
  const error = await running.done.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ForwardGaveUp);
  expect(error).toMatchObject({ data: { scope: 'apps/v1/deployments@*', attempts: ONCE_MAX_ATTEMPTS } });
  expect((error as Error).message).toMatch(/ECONNREFUSED|connect/);
  expect(running.logs.filter((line) => line.event === 'WatchFailed')).toHaveLength(ONCE_MAX_ATTEMPTS - 1);
});

it('given no --once, the same failures are retried past that bound', async () => {
  const running = start(false);
  for (let released = 0; released < ONCE_MAX_ATTEMPTS + 1; released++) {
    await eventually(() => running.waits.held.length === 1, 'a backoff wait');
    running.waits.releaseAll();
  }
  await eventually(() => running.waits.held.length === 1, 'a backoff wait');
  expect(running.logs.filter((line) => line.event === 'WatchFailed').length).toBeGreaterThan(
    ONCE_MAX_ATTEMPTS,
  );
});
