// Numbers exact through the forwarder: a custom resource's int64 fields, as the apiserver writes
// them (Go's encoding/json writes an int64 with all its digits), read by the forwarder's paged LIST
// (a server without WatchList) and its WATCH, posted to the app on the embedded host, committed
// digit for digit, and read back as the same integers by PyYAML.
jest.mock('@azure/functions-core', () => jest.requireActual('../../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
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
import { ObjectStore, type ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import { readWithPyYaml } from '../../support/pyyaml';
import { fakeConnection, type RunningForwarder, startForwarder } from './support/forwarder-harness';
import { eventually } from './support/manual-delay';

const WIDGETS: ResourceType = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  namespaced: true,
  statusSubresource: false,
};
const KUBE_TOKEN = 'kube-token-exact-numbers';
const FILE = 'clusters/prod/default/example.com/widgets/counter.yaml';

const LIMITS = {
  max: 9223372036854775807n,
  min: -9223372036854775808n,
  odd: 9007199254740993n,
  beyondInt64: 123456789012345678901234567890n,
  small: 3,
};

describe('the forwarder carrying int64 fields to Git', () => {
  let app: AppHost;
  let kube: FakeKubeApi;
  let remote: string;
  let dir: string;
  let forwarder: RunningForwarder | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ks-forwarder-numbers-'));
    remote = await createBareRepository(join(dir, 'state.git'));
    kube = await startFakeKubeApi({ types: [WIDGETS], bearerToken: KUBE_TOKEN, watchList: false });
    app = await startAppHost(
      oneTargetConfig({ url: remote, target: { window: { idleTimeout: '2s', maxDuration: '10s' } } }),
    );
  });

  afterAll(async () => {
    await forwarder?.stop();
    await kube?.close();
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const committed = async () => {
    const file = await git(remote, 'show', `main:${FILE}`);
    const [read] = readWithPyYaml([file]);
    return {
      file,
      spec: read !== undefined && 'value' in read ? (read.value as { spec?: unknown }).spec : read,
    };
  };

  it('commits the int64 fields of a LIST snapshot digit for digit', async () => {
    kube.create(WIDGETS, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'counter', namespace: 'default' },
      spec: { limits: LIMITS },
    });
    const config: ForwarderConfigInput = {
      kubescribe: { url: app.host.url, target: 'prod' },
      resources: [{ group: 'example.com', version: 'v1', resource: 'widgets' }],
      namespaces: ['default'],
      batch: { maxEvents: 1, maxDelay: '1s' },
      cursorFile: join(dir, 'cursors.json'),
    };
    forwarder = startForwarder({ config, connection: fakeConnection(kube.url, KUBE_TOKEN) });
    await eventually(() => forwarder?.logs.find((l) => l.event === 'SnapshotCompleted'), 'the snapshot');
    expect(forwarder.logs.find((l) => l.event === 'SnapshotCompleted')).toMatchObject({ by: 'list' });
    await app.advance(15_000);

    const { file, spec } = await committed();
    expect(file).toContain(
      [
        '    beyondInt64: 123456789012345678901234567890',
        '    max: 9223372036854775807',
        '    min: -9223372036854775808',
        '    odd: 9007199254740993',
        '    small: 3',
      ].join('\n'),
    );
    expect(spec).toEqual({ limits: LIMITS });
  });

  it('commits an int64 changed in a WATCH event digit for digit', async () => {
    const key = ObjectStore.key(WIDGETS, 'default', 'counter');
    const current = kube.store.get(key)!;
    kube.store.replace(
      key,
      { ...current, spec: { limits: { ...LIMITS, max: 9223372036854775806n } } },
      { specChanged: true },
    );
    await eventually(() => forwarder?.logs.find((l) => l.event === 'EventsPosted'), 'the watch event');
    await app.advance(15_000);

    const { file, spec } = await committed();
    expect(file).toContain('    max: 9223372036854775806\n');
    expect(spec).toEqual({ limits: { ...LIMITS, max: 9223372036854775806n } });
  });
});
