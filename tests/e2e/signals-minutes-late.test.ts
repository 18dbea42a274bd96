// A client signal in flight when its partition moves comes back minutes late: Azure Storage
// dequeues control-queue messages with a visibility timeout of 5 minutes
// (Azure/durabletask src/DurableTask.AzureStorage/AzureStorageOrchestrationServiceSettings.cs,
// `ControlQueueVisibilityTimeout { get; set; } = TimeSpan.FromMinutes(5)`; ControlQueue.cs passes it
// to `GetMessagesAsync`), so a message the worker losing the partition held reappears then, taken
// for the first time or again, behind everything sent since. Here it comes back past a window's
// close and a publication of a newer change to its path: no acknowledged change is lost, none is
// committed twice, and no late change replaces a newer one in Git. Past the request-id memory
// (16,384 signals in between) the same is shown on the entity's operations, which is where the
// volume is affordable: tests/unit/app/entity/signals-minutes-late.test.ts.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BranchEntityState } from '../../shared/app/entity/branch-operations';
import { branchKeyFor } from '../../shared/app/runtime/branch-key';
import { BRANCH_ENTITY } from '../../shared/app/runtime/durable-names';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

const MINUTE = 60_000;
const PATHS = 40;
const UPDATED_AGAIN = 20; // cm-0..cm-19 get a newer version, published before the late signals return

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-late-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }),
    {},
    // A third of the client signals are caught in a partition move (besides the usual reordering
    // and duplicates): each comes back after the visibility timeout, once or twice.
    { engine: { semantics: 'azure-storage', clientSignals: { partitionMoveProbability: 0.3 } } },
  );
});

afterAll(async () => {
  await app?.stop();
});

/** One audit event: ConfigMap `name` updated by alice to `value` at `resourceVersion`. */
function event(name: string, value: string, resourceVersion: number) {
  return {
    auditID: `${name}-${resourceVersion}`,
    stage: 'ResponseComplete',
    verb: 'update',
    requestURI: `/api/v1/namespaces/shop/configmaps/${name}`,
    user: { username: 'alice' },
    objectRef: { resource: 'configmaps', namespace: 'shop', name, apiVersion: 'v1' },
    responseStatus: { code: 200 },
    responseObject: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', resourceVersion: String(resourceVersion) },
      data: { value },
    },
  };
}

/**
 * An EventList of ConfigMap `name`'s update and its pair's (`<name>-pair`): a request of several
 * changes is kept beside the branch state as a run, whose order the publish activity decides.
 */
function updated(name: string, value: string, resourceVersion: number) {
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    items: [event(name, value, resourceVersion), event(`${name}-pair`, value, resourceVersion)],
  };
}

/** Posts until acknowledged: a 429 is not an acknowledgement, and the audit webhook retries it. */
async function post(body: object): Promise<void> {
  for (;;) {
    const answer = await app.http('POST', '/api/v1/targets/prod/audit', body);
    if (answer.status === 200) return;
    expect(answer.status).toBe(429);
    await app.advance(1000);
  }
}

const file = (name: string) => `clusters/prod/shop/configmaps/${name}.yaml`;
const valueIn = async (name: string) =>
  (await git(remote, 'show', `main:${file(name)}`)).match(/value: (\S+)/)?.[1];
/** The values a path took in Git, oldest first: one per commit that touched it. */
async function history(name: string): Promise<string[]> {
  const log = await git(remote, 'log', '--reverse', '--format=%H', 'main', '--', file(name));
  const values: string[] = [];
  for (const commit of log.trim().split('\n').filter(Boolean)) {
    const text = await git(remote, 'show', `${commit}:${file(name)}`).catch(() => '(deleted)');
    values.push(text.match(/value: (\S+)/)?.[1] ?? text);
  }
  return values;
}

it('applies a signal minutes late once, never over a newer change published meanwhile', async () => {
  for (let i = 0; i < PATHS; i++) await post(updated(`cm-${i}`, 'v1', 100 + i));
  await app.advance(30_000); // the window closes and is published (what was not held back)
  for (let i = 0; i < UPDATED_AGAIN; i++) await post(updated(`cm-${i}`, 'v2', 1_000 + i));
  await app.advance(30_000);
  expect(app.logs.filter((l) => l.event === 'SignalCaughtInPartitionMove').length).toBeGreaterThanOrEqual(10);
  const beforeReturn = await Promise.all(range(PATHS).map((i) => valueIn(`cm-${i}`).catch(() => undefined)));
  expect(beforeReturn).toContain(undefined); // some v1 are still held: never published yet

  await app.advance(7 * MINUTE); // every held signal is back, and published
  for (let i = 0; i < PATHS; i++) {
    const newest = i < UPDATED_AGAIN ? 'v2' : 'v1';
    const values = await history(`cm-${i}`);
    // each version committed at most once, and never an older one after a newer
    expect({ path: i, values }).toEqual({
      path: i,
      values: i < UPDATED_AGAIN && values.length === 2 ? ['v1', 'v2'] : [newest],
    });
  }
  const status = (await app.http('GET', '/api/v1/targets/prod')).body.publication;
  expect(status).toMatchObject({ pendingWrites: 0 });
  // The branch remembers every signal it applied, held, duplicated or not, as one range of the
  // numbers the app gave them (shared/app/entity/request-ids.ts), not id by id.
  const read = app.host.client.readEntityState(BRANCH_ENTITY, branchKeyFor(remote, 'main').key);
  const stored = read.exists ? (read.state as BranchEntityState) : undefined;
  expect(stored?.requests).toBeUndefined();
  expect(Object.values(stored?.sequences ?? {})).toEqual([[[1, expect.any(Number), expect.any(Number)]]]);
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
