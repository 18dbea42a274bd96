// The forwarder's protocol behaviour: a protocol-level fake Kubernetes API server (no real one can
// run here) and a stub of kubescribe's ingest routes, for answers the real app cannot give on cue.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ForwarderConfigInput } from '../../../shared/forwarder/config';
import { WebhookRejected } from '../../../shared/forwarder/errors';
import { type KubeObject, ObjectStore, type ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import { fakeConnection, type RunningForwarder, startForwarder } from './support/forwarder-harness';
import { eventually } from './support/manual-delay';
import { startStubWebhook } from './support/stub-webhook';

const DEPLOYMENTS: ResourceType = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  statusSubresource: true,
};
const KUBE_TOKEN = 'kube-token-protocol-77aa';
const WEBHOOK_TOKEN = 'webhook-token-s3cr3t-91';
const KEY = 'apps/v1/deployments@*';

function deployment(name: string, replicas: number, manager?: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'prod',
      ...(manager ? { managedFields: [{ manager, operation: 'Apply', time: '2026-01-01T00:00:00Z' }] } : {}),
    },
    spec: { replicas },
  };
}

describe('the forwarder speaking the watch protocol', () => {
  let kube: FakeKubeApi;
  let stub: Awaited<ReturnType<typeof startStubWebhook>>;
  let dir: string;
  let forwarder: RunningForwarder | undefined;

  const start = (extra: Partial<ForwarderConfigInput> = {}, once = false) => {
    forwarder = startForwarder({
      config: {
        kubescribe: { url: stub.url, target: 'prod', tokenEnv: 'UNUSED_IN_TESTS' },
        resources: [{ group: 'apps', version: 'v1', resource: 'deployments' }],
        exclude: { fieldManagers: ['kustomize-controller'] },
        batch: { maxEvents: 2, maxDelay: '1s' },
        snapshot: { partObjects: 2, listPageSize: 2 },
        cursorFile: join(dir, 'cursors.json'),
        ...extra,
      },
      connection: fakeConnection(kube.url, KUBE_TOKEN),
      token: WEBHOOK_TOKEN,
      once,
    });
    return forwarder;
  };
  const cursor = () => {
    const file = join(dir, 'cursors.json');
    if (!existsSync(file)) return undefined;
    return (JSON.parse(readFileSync(file, 'utf8')) as { cursors: Record<string, string> }).cursors[KEY];
  };
  const eventPosts = () => stub.requests.filter((r) => r.path.endsWith('/events'));
  const watches = () => kube.requests.filter((r) => r.query.watch === 'true');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ks-forwarder-protocol-'));
    kube = await startFakeKubeApi({ types: [DEPLOYMENTS], bearerToken: KUBE_TOKEN, watchList: false });
    stub = await startStubWebhook();
    for (const name of ['a', 'b', 'c']) kube.create(DEPLOYMENTS, deployment(name, 1));
  });

  afterEach(async () => {
    await forwarder?.stop().catch(() => {});
    forwarder = undefined;
    await kube.close();
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('falls back to a paged LIST then a WATCH from its revision when the server refuses sendInitialEvents', async () => {
    const f = start();
    await eventually(() => f.logs.find((l) => l.event === 'SnapshotCompleted'), 'the snapshot');
    kube.store.replace(ObjectStore.key(DEPLOYMENTS, 'prod', 'a'), deployment('a', 2), { specChanged: true });
    kube.delete(DEPLOYMENTS, 'prod', 'b');
    await eventually(() => eventPosts().length === 1, 'the event batch');

    expect(f.logs.find((l) => l.event === 'StreamingListUnsupported')).toBeDefined();
    expect(
      kube.requests.filter((r) => r.query.limit === '2').map((r) => r.query.continue !== undefined),
    ).toEqual([false, true]);
    const [part1, part2, complete] = stub.requests;
    expect(part1?.path).toMatch(/^\/api\/v1\/targets\/prod\/snapshots\/[0-9a-f-]+\/parts$/);
    expect((part1?.body as { objects?: unknown[] } | undefined)?.objects).toHaveLength(2);
    expect(part2?.body).toMatchObject({
      objects: [{ resource: 'deployments', object: { metadata: { name: 'c' } } }],
    });
    expect(complete).toMatchObject({
      body: { scope: { group: 'apps', resource: 'deployments' }, revision: '3', parts: 2 },
    });
    expect(watches().at(-1)?.query).toMatchObject({ resourceVersion: '3', allowWatchBookmarks: 'true' });
    expect(eventPosts()[0]?.body).toMatchObject({
      events: [
        { type: 'MODIFIED', resource: 'deployments', object: { spec: { replicas: 2 } } },
        { type: 'DELETED', resource: 'deployments', object: { metadata: { name: 'b' } } },
      ],
    });
    expect(stub.requests.every((r) => r.authorization === `Bearer ${WEBHOOK_TOKEN}`)).toBe(true);
    await eventually(() => cursor() === '5', 'the cursor after the batch');
  });

  it('reconnects from its cursor when the server ends a watch, backing off only when the watch carried nothing', async () => {
    const f = start();
    await eventually(() => cursor() === '3', 'the snapshot cursor');
    await eventually(() => kube.openWatches() === 1, 'the watch');
    kube.endWatches();
    const wait = await eventually(() => f.waits.held.find((w) => w.ms === 750), 'the empty-watch backoff');
    expect(f.logs.find((l) => l.event === 'WatchEnded')).toMatchObject({
      received: 0,
      waitMs: 750,
      resourceVersion: '3',
    });
    kube.store.replace(ObjectStore.key(DEPLOYMENTS, 'prod', 'a'), deployment('a', 2), { specChanged: true });
    wait.release();
    (await eventually(() => f.waits.held.find((w) => w.ms === 1000), 'the batch timer')).release();
    await eventually(() => cursor() === '4', 'the cursor after the change');

    const resumed = watches().filter((r) => r.query.sendInitialEvents === undefined);
    expect(resumed.map((r) => r.query.resourceVersion)).toEqual(['3', '3']);
    expect(f.logs.filter((l) => l.event === 'SnapshotStarted')).toHaveLength(1);
    expect(eventPosts()).toHaveLength(1);
  });

  it('waits out a 429 without moving the cursor or reconnecting, then posts the same batch once', async () => {
    const f = start();
    await eventually(() => cursor() === '3', 'the snapshot cursor');
    stub.answerNext({ path: /\/events$/, times: 1, status: 429, headers: { 'retry-after': '7' } });
    kube.store.replace(ObjectStore.key(DEPLOYMENTS, 'prod', 'a'), deployment('a', 2), { specChanged: true });
    kube.store.replace(ObjectStore.key(DEPLOYMENTS, 'prod', 'c'), deployment('c', 2), { specChanged: true });
    const paused = await eventually(() => f.waits.held.find((w) => w.ms === 7000), 'the Retry-After wait');
    // More changes arrive while intake is paused; they wait in the stream, not in memory.
    kube.store.replace(ObjectStore.key(DEPLOYMENTS, 'prod', 'a'), deployment('a', 3), { specChanged: true });

    expect(cursor()).toBe('3');
    const watchesWhilePaused = watches().length;
    paused.release();
    await eventually(() => cursor() === '5', 'the cursor after the paused batch');
    await eventually(
      () => eventPosts().length === 2 || f.waits.held.some((w) => w.ms === 1000),
      'the next batch',
    );
    for (const timer of f.waits.held.filter((w) => w.ms === 1000)) timer.release();
    await eventually(() => cursor() === '6', 'the cursor after the next batch');

    expect(watches()).toHaveLength(watchesWhilePaused);
    const [refused, accepted, next] = eventPosts();
    expect(refused?.status).toBe(429);
    expect(accepted?.body).toEqual(refused?.body);
    expect(next?.body).toMatchObject({ events: [{ object: { spec: { replicas: 3 } } }] });
    expect(f.logs.find((l) => l.event === 'IntakePaused')).toMatchObject({ waitMs: 7000 });
  });

  it('backs off with doubling, jittered waits while kubescribe is unreachable, then completes the snapshot', async () => {
    stub.answerNext({ path: /\/parts$/, times: 3, status: 'drop' });
    const f = start({ snapshot: { partObjects: 10 } });
    for (const expected of [750, 1500, 3000]) {
      const wait = await eventually(
        () => f.waits.held.find((w) => w.ms === expected),
        `a wait of ${expected} ms`,
      );
      wait.release();
    }
    await eventually(() => cursor() === '3', 'the snapshot cursor');
    expect(f.logs.filter((l) => l.event === 'WebhookUnreachable').map((l) => l.waitMs)).toEqual([
      750, 1500, 3000,
    ]);
  });

  it('does not forward changes whose latest writer is an excluded field manager, yet moves past them', async () => {
    const f = start();
    await eventually(() => cursor() === '3', 'the snapshot cursor');
    kube.store.replace(
      ObjectStore.key(DEPLOYMENTS, 'prod', 'a'),
      deployment('a', 5, 'kustomize-controller'),
      {
        specChanged: true,
      },
    );
    await eventually(() => cursor() === '4', 'the cursor past the excluded change');
    kube.store.replace(ObjectStore.key(DEPLOYMENTS, 'prod', 'b'), deployment('b', 5, 'kubectl-edit'), {
      specChanged: true,
    });
    const timer = await eventually(() => f.waits.held.find((w) => w.ms === 1000), 'the batch timer');
    timer.release();
    await eventually(() => cursor() === '5', 'the cursor after the batch');

    expect(eventPosts().map((r) => r.body)).toEqual([
      {
        events: [
          {
            type: 'MODIFIED',
            resource: 'deployments',
            object: expect.objectContaining({
              metadata: expect.not.objectContaining({ managedFields: expect.anything() }),
            }),
          },
        ],
      },
    ]);
    expect(f.logs.find((l) => l.event === 'EventsExcluded')).toMatchObject({
      manager: 'kustomize-controller',
    });
  });

  it('stops with a typed error when kubescribe refuses a body, leaving the cursor where it was', async () => {
    stub.answerNext({ path: /\/complete$/, times: 1, status: 400 });
    const f = start();
    await expect(f.done).rejects.toBeInstanceOf(WebhookRejected);
    await expect(f.done).rejects.toMatchObject({ data: { status: 400 } });
    expect(cursor()).toBeUndefined();
  });

  it('posts one snapshot and exits in once mode', async () => {
    const f = start({}, true);
    await f.done;
    expect(stub.requests.map((r) => r.path.split('/').pop())).toEqual(['parts', 'parts', 'complete']);
    expect(watches()).toHaveLength(1);
    expect(kube.openWatches()).toBe(0);
    expect(cursor()).toBe('3');
  });
});
