// A paused branch end to end: Git (a real `git http-backend` behind a fault proxy) refuses, the real
// app's intake fills and answers 429 + Retry-After, and the forwarder waits and resumes. The
// Kubernetes side is a protocol-level fake (no real API server can run here).
jest.mock('@azure/functions-core', () => jest.requireActual('../../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, git, oneTargetConfig, startAppHost } from '../../support/app/app-host';
import type { KubeObject, ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import type { FaultProxy } from '../../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../../support/git/start-proxied-remote';
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
const KUBE_TOKEN = 'kube-token-paused-91c4';
const KEY = 'core/v1/configmaps@shop';

function configMap(name: string, size: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop' },
    data: { payload: 'x'.repeat(size) },
  };
}

describe('the forwarder against a paused branch', () => {
  let app: AppHost;
  let kube: FakeKubeApi;
  let served: ProxiedRemote;
  let proxy: FaultProxy;
  let remote: string;
  let cursorFile: string;
  let root: string;
  let forwarder: RunningForwarder;

  const cursor = () =>
    (JSON.parse(readFileSync(cursorFile, 'utf8')) as { cursors: Record<string, string> }).cursors[KEY];
  const logged = (event: string) => forwarder.logs.filter((l) => l.event === event).length;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ks-forwarder-paused-'));
    cursorFile = join(root, 'cursors.json');
    served = await startProxiedRemote();
    ({ remote, proxy } = served);
    kube = await startFakeKubeApi({ types: [CONFIGMAPS], bearerToken: KUBE_TOKEN });
    app = await startAppHost(
      oneTargetConfig({
        url: `${proxy.url}/state.git`,
        target: { window: { idleTimeout: '2s', maxDuration: '10s' } },
        limits: { branchBufferBytes: '64Ki', gitCallTimeout: '5s', publishTimeout: '20s' },
      }),
    );
  });

  afterAll(async () => {
    await forwarder?.stop();
    await kube?.close();
    await app?.stop();
    await served?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('waits out the 429 without moving its cursor or reconnecting, then delivers every change exactly once', async () => {
    proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 100_000 });
    kube.create(CONFIGMAPS, configMap('initial', 100));
    forwarder = startForwarder({
      config: {
        kubescribe: { url: app.host.url, target: 'prod' },
        resources: [{ group: '', version: 'v1', resource: 'configmaps' }],
        namespaces: ['shop'],
        batch: { maxEvents: 1 },
        cursorFile,
      },
      connection: fakeConnection(kube.url, KUBE_TOKEN),
    });
    await eventually(() => logged('SnapshotCompleted') === 1, 'the snapshot');

    // Fill the branch's budget while Git is down, one change per post, until intake pauses.
    const names: string[] = ['initial'];
    for (let index = 0; logged('IntakePaused') === 0; index++) {
      expect(index).toBeLessThan(40);
      const posted = logged('EventsPosted');
      names.push(`filler-${index}`);
      kube.create(CONFIGMAPS, configMap(`filler-${index}`, 8 * 1024));
      await eventually(() => logged('EventsPosted') > posted || logged('IntakePaused') > 0, 'an answer');
      await app.advance(1000);
    }
    const paused = forwarder.logs.find((l) => l.event === 'IntakePaused')!;
    expect(paused.waitMs).toBeGreaterThan(0);
    const cursorWhilePaused = cursor();
    const watchesWhilePaused = kube.requests.filter((r) => r.query.watch === 'true').length;
    // Changes made while paused wait in the watch stream.
    for (const name of ['late-1', 'late-2']) {
      names.push(name);
      kube.create(CONFIGMAPS, configMap(name, 100));
    }
    expect(cursor()).toBe(cursorWhilePaused);
    expect(kube.store.currentRevision).toBeGreaterThan(Number(cursorWhilePaused));

    // Git returns; the branch publishes on its retry schedule and reopens intake.
    proxy.reset();
    for (let second = 0; second < 10 * 60 && cursor() !== String(kube.store.currentRevision); second += 5) {
      await app.advance(5000);
      forwarder.waits.releaseAll();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(cursor()).toBe(String(kube.store.currentRevision));
    await app.advance(30_000);

    expect(kube.requests.filter((r) => r.query.watch === 'true')).toHaveLength(watchesWhilePaused);
    const files = (await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');
    expect(files.filter((f) => f.startsWith('clusters/')).sort()).toEqual(
      names.map((name) => `clusters/prod/shop/configmaps/${name}.yaml`).sort(),
    );
    const trailers = (await git(remote, 'log', '--format=%(trailers:key=Kubescribe-Write,valueonly)', 'main'))
      .split('\n')
      .filter(Boolean);
    expect(new Set(trailers).size).toBe(trailers.length);
    await git(remote, 'fsck', '--strict');
  });
});
