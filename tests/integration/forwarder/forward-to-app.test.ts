// The forwarder end to end: a protocol-level fake Kubernetes API server (no real one can run here)
// feeds the real kubescribe app on the embedded host, which commits to a local bare repository.
jest.mock('@azure/functions-core', () => jest.requireActual('../../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ForwarderConfigInput } from '../../../shared/forwarder/config';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../../support/app/app-host';
import { type KubeObject, ObjectStore, type ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import { fakeConnection, type RunningForwarder, startForwarder } from './support/forwarder-harness';
import { eventually } from './support/manual-delay';

const CONFIGMAPS: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  statusSubresource: false,
};
const KUBE_TOKEN = 'kube-token-forwarder-3e1f';
const FILES = 'clusters/prod/default/configmaps';

function configMap(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

describe('the forwarder feeding the app', () => {
  let app: AppHost;
  let kube: FakeKubeApi;
  let remote: string;
  let cursorFile: string;
  let dir: string;
  let forwarder: RunningForwarder | undefined;

  const config = (): ForwarderConfigInput => ({
    kubescribe: { url: app.host.url, target: 'prod' },
    resources: [{ group: '', version: 'v1', resource: 'configmaps' }],
    namespaces: ['default'],
    batch: { maxEvents: 50, maxDelay: '1s' },
    snapshot: { partObjects: 2 },
    cursorFile,
  });
  const start = () => {
    forwarder = startForwarder({ config: config(), connection: fakeConnection(kube.url, KUBE_TOKEN) });
    return forwarder;
  };
  const edit = (name: string, data: Record<string, string>) => {
    const key = ObjectStore.key(CONFIGMAPS, 'default', name);
    const current = kube.store.get(key)!;
    kube.store.replace(key, { ...current, data }, { specChanged: false });
  };
  const files = async () => (await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');
  const commits = async () => (await git(remote, 'rev-list', '--count', 'main')).trim();
  const cursor = () =>
    (JSON.parse(readFileSync(cursorFile, 'utf8')) as { cursors: Record<string, string> }).cursors;
  /** Fires the batch timer the forwarder is holding, and waits until the batch is acknowledged. */
  const flushBatch = async (f: RunningForwarder) => {
    const posted = f.logs.filter((l) => l.event === 'EventsPosted').length;
    const timer = await eventually(() => f.waits.held.find((w) => w.ms === 1000), 'the batch timer');
    timer.release();
    await eventually(
      () => f.logs.filter((l) => l.event === 'EventsPosted').length > posted,
      'the batch post',
    );
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ks-forwarder-'));
    remote = await createBareRepository(join(dir, 'state.git'));
    cursorFile = join(dir, 'cursors.json');
    kube = await startFakeKubeApi({ types: [CONFIGMAPS], bearerToken: KUBE_TOKEN });
    app = await startAppHost(
      oneTargetConfig({
        url: remote,
        target: { prune: 'Always', window: { idleTimeout: '2s', maxDuration: '10s' } },
      }),
    );
  });

  afterAll(async () => {
    await forwarder?.stop();
    await kube?.close();
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lands the initial snapshot, posted in parts over a streaming list, as one commit', async () => {
    for (const name of ['a', 'b', 'c']) kube.create(CONFIGMAPS, configMap(name, { v: '1' }));
    const f = start();
    await eventually(() => f.logs.find((l) => l.event === 'SnapshotCompleted'), 'the snapshot');
    await app.advance(15_000);

    expect(f.logs.find((l) => l.event === 'SnapshotCompleted')).toMatchObject({
      objects: 3,
      by: 'streaming-list',
    });
    expect(kube.requests.filter((r) => r.query.sendInitialEvents === 'true')).toHaveLength(1);
    expect(await commits()).toBe('1');
    expect(await files()).toEqual([`${FILES}/a.yaml`, `${FILES}/b.yaml`, `${FILES}/c.yaml`]);
    expect(cursor()).toEqual({ 'core/v1/configmaps@default': String(kube.store.currentRevision) });
  });

  it('follows live edits and deletes in batches after the snapshot, and moves the cursor after the post', async () => {
    const f = forwarder!;
    edit('a', { v: '2' });
    kube.delete(CONFIGMAPS, 'default', 'b');
    await flushBatch(f);
    await app.advance(15_000);

    expect(f.logs.filter((l) => l.event === 'EventsPosted').at(-1)).toMatchObject({ events: 2 });
    expect(await files()).toEqual([`${FILES}/a.yaml`, `${FILES}/c.yaml`]);
    expect(await git(remote, 'show', `main:${FILES}/a.yaml`)).toContain('v: "2"');
    expect(cursor()['core/v1/configmaps@default']).toBe(String(kube.store.currentRevision));
  });

  it('moves the cursor on a bookmark when no change is waiting', async () => {
    // A write in a namespace this watch does not cover moves the revision without an event for it.
    kube.create(CONFIGMAPS, { ...configMap('x', {}), metadata: { name: 'x', namespace: 'other' } });
    kube.bookmark();
    await eventually(
      () => cursor()['core/v1/configmaps@default'] === String(kube.store.currentRevision),
      'the bookmark cursor',
    );
  });

  it('snapshots again after a 410 and sweeps the object deleted while the history was lost', async () => {
    const f = forwarder!;
    // The next watch attempt fails, so the forwarder is away (backing off) while c is deleted and history compacted.
    kube.injectFault({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      times: 1,
      action: { respond: { status: 500, body: {} } },
    });
    kube.endWatches();
    const backoff = await eventually(
      () => f.logs.find((l) => l.event === 'WatchFailed'),
      'the failed reconnect',
    );
    expect(backoff).toMatchObject({ waitMs: 750 });
    kube.store.delete(ObjectStore.key(CONFIGMAPS, 'default', 'c'));
    kube.create(CONFIGMAPS, configMap('d', { v: '1' }));
    kube.compact();
    const held = await eventually(() => f.waits.held.find((w) => w.ms === 750), 'the backoff wait');
    held.release();

    await eventually(
      () => f.logs.filter((l) => l.event === 'SnapshotCompleted').length === 2,
      'the second snapshot',
    );
    await app.advance(15_000);
    expect(f.logs.find((l) => l.event === 'WatchExpired')).toBeDefined();
    expect(await files()).toEqual([`${FILES}/a.yaml`, `${FILES}/d.yaml`]);
  });

  it('resumes from the cursor after a restart, without a new snapshot', async () => {
    await forwarder!.stop();
    const stoppedAt = cursor()['core/v1/configmaps@default'];
    edit('d', { v: '2' });
    const f = start();
    await flushBatch(f);
    await app.advance(15_000);

    expect(f.logs.filter((l) => l.event === 'SnapshotStarted')).toHaveLength(0);
    expect(kube.requests.at(-1)?.query).toMatchObject({ watch: 'true', resourceVersion: stoppedAt });
    expect(await git(remote, 'show', `main:${FILES}/d.yaml`)).toContain('v: "2"');
    expect(await git(remote, 'log', '--format=%s', '-1', 'main')).toBe('[UPDATE] v1/configmaps default/d\n');
  });
});
