// H10 of the HA fault table (docs/architecture.md, "What survives what"): a watch's history expires
// (410 Gone) while Git is down and writes, a delete among them, are still pending. Upstream's rule
// (snapshot delivery: "410 Gone = fresh replay, never loss of the old tail"): the forwarder
// snapshots again; when Git returns, the pending writes are published in order before the
// snapshot, the deleted object does not come back, the object deleted while the history was lost
// is swept, and the sweep stays in the snapshot's scope. The forwarder in this process against the
// protocol-level fake API server (no real one can run here), the app on the embedded host with a
// virtual clock, real `git http-backend` behind the fault proxy. `prune: Always` is set explicitly.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ForwarderConfigInput } from '../../shared/forwarder/config';
import { fakeConnection, startForwarder } from '../integration/forwarder/support/forwarder-harness';
import { eventually } from '../integration/forwarder/support/manual-delay';
import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { configMapEvent, filesOn, history } from '../support/app/branch-observations';
import { type KubeObject, ObjectStore, type ResourceType } from '../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../support/fake-kube-api/server';
import type { GitRequestKind } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

const CONFIGMAPS: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  statusSubresource: false,
};
const KUBE_TOKEN = 'kube-token-forwarder-410e';
const FILES = 'clusters/prod/default/configmaps';
const KINDS: GitRequestKind[] = ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'];

let app: AppHost;
let kube: FakeKubeApi;
let served: ProxiedRemote;

function configMap(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

beforeAll(async () => {
  served = await startProxiedRemote({ files: { 'README.md': 'state\n' } });
  kube = await startFakeKubeApi({ types: [CONFIGMAPS], bearerToken: KUBE_TOKEN });
  app = await startAppHost(
    oneTargetConfig({
      url: served.url,
      target: { prune: 'Always', window: { idleTimeout: '2s', maxDuration: '10s' } },
      limits: { pushCooldown: '0s', retry: { initial: '10s', max: '20s' } },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await kube?.close();
  await served?.stop();
});

it('given writes and a delete pending through a Git outage when the watch expires, publishes them in order, then the fresh snapshot, within its scope', async () => {
  const { remote, proxy } = served;
  // another sender's ConfigMap in a namespace the forwarder does not watch: outside every sweep
  const other = {
    ...configMapEvent('elsewhere'),
    object: { ...configMapEvent('elsewhere').object, metadata: { name: 'elsewhere', namespace: 'other' } },
  };
  expect((await app.http('POST', '/api/v1/targets/prod/events', { events: [other] })).status).toBe(202);
  for (const name of ['a', 'b', 'c']) kube.create(CONFIGMAPS, configMap(name, { v: '1' }));
  const config: ForwarderConfigInput = {
    kubescribe: { url: app.host.url, target: 'prod' },
    resources: [{ group: '', version: 'v1', resource: 'configmaps' }],
    namespaces: ['default'],
    batch: { maxEvents: 50, maxDelay: '1s' },
    snapshot: { partObjects: 2 },
    cursorFile: join(mkdtempSync(join(tmpdir(), 'ks-410-')), 'cursors.json'),
  };
  const f = startForwarder({ config, connection: fakeConnection(kube.url, KUBE_TOKEN) });
  try {
    await eventually(() => f.logs.find((l) => l.event === 'SnapshotCompleted'), 'the first snapshot');
    await app.advance(15_000);
    expect(await filesOn(remote)).toEqual(
      expect.arrayContaining([
        `${FILES}/a.yaml`,
        `${FILES}/b.yaml`,
        `${FILES}/c.yaml`,
        'clusters/prod/other/configmaps/elsewhere.yaml',
      ]),
    );
    const before = (await history(remote)).length;

    // Git goes down; an edit and a delete are accepted and wait
    for (const on of KINDS) proxy.inject({ on, fault: { kind: 'refuse' }, times: 100_000 });
    const key = (name: string) => ObjectStore.key(CONFIGMAPS, 'default', name);
    kube.store.replace(key('a'), { ...kube.store.get(key('a'))!, data: { v: '2' } }, { specChanged: false });
    kube.delete(CONFIGMAPS, 'default', 'b');
    const posted = f.logs.filter((l) => l.event === 'EventsPosted').length;
    (await eventually(() => f.waits.held.find((w) => w.ms === 1000), 'the batch timer')).release();
    await eventually(
      () => f.logs.filter((l) => l.event === 'EventsPosted').length > posted,
      'the batch post',
    );
    await app.advance(5000);
    expect((await app.http('GET', '/api/v1/targets/prod')).body.publication.pendingWrites).toBe(1);

    // the watch's history expires while the forwarder is away: c deleted, d created meanwhile
    kube.injectFault({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      times: 1,
      action: { respond: { status: 500, body: {} } },
    });
    kube.endWatches();
    await eventually(() => f.logs.find((l) => l.event === 'WatchFailed'), 'the failed reconnect');
    kube.store.delete(key('c'));
    kube.create(CONFIGMAPS, configMap('d', { v: '1' }));
    kube.compact();
    (await eventually(() => f.waits.held.find((w) => w.ms === 750), 'the backoff wait')).release();
    await eventually(
      () => f.logs.filter((l) => l.event === 'SnapshotCompleted').length === 2,
      'the second snapshot',
    );
    expect(f.logs.find((l) => l.event === 'WatchExpired')).toBeDefined();
    await app.advance(5000);
    expect((await history(remote)).length).toBe(before);

    // Git returns
    proxy.reset();
    await app.advance(30_000);
    expect((await app.http('GET', '/api/v1/targets/prod')).body.publication.pendingWrites).toBe(0);
    expect((await filesOn(remote)).filter((path) => path.endsWith('.yaml')).sort()).toEqual([
      `${FILES}/a.yaml`,
      `${FILES}/d.yaml`,
      'clusters/prod/other/configmaps/elsewhere.yaml',
    ]);
    expect(await git(remote, 'show', `main:${FILES}/a.yaml`)).toContain('v: "2"');
    // newest first: the fresh snapshot after the writes that waited through the outage
    const subjects = (await history(remote)).slice(0, -before).map((commit) => commit.subject);
    expect(subjects).toHaveLength(2);
    expect(subjects[0]).toMatch(/^reconciled /);
    expect(subjects[1]).not.toMatch(/^reconciled /);
    await git(remote, 'fsck', '--strict');
  } finally {
    await f.stop();
  }
});
