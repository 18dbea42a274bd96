// An AKS cluster's audit log through Event Hubs, end to end on the embedded host: diagnostic record
// batches (tests/support/eventhub/aks-records.ts, modelled on real AKS records) published to the
// host's local hub become files and commits by the audit users, exactly once, whatever the
// partitions' order and however often a batch is delivered.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { auditEvent, body, otherRecords, record } from '../support/eventhub/aks-records';

const HUB = 'aks-audit';
let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-eventhub-')), 'state.git'));
  app = await startAppHost(
    {
      ...oneTargetConfig({
        url: remote,
        target: { window: { idleTimeout: '2s', maxDuration: '1m' } },
        limits: { pushCooldown: '0s' },
      }),
      sources: [
        {
          name: 'aks-prod',
          kind: 'eventHub',
          // Both categories, as a cluster that streams both: each change arrives twice.
          eventHub: { hub: HUB, consumerGroup: 'kubescribe', categories: ['kube-audit', 'kube-audit-admin'] },
          targets: ['prod'],
        },
      ],
    },
    { KUBESCRIBE_EVENTHUB_NAME: HUB, KUBESCRIBE_EVENTHUB_CONSUMER_GROUP: 'kubescribe' },
  );
});

afterAll(async () => {
  await app?.stop();
});

const file = (name: string) => `clusters/prod/shop/configmaps/${name}.yaml`;

async function show(name: string): Promise<string> {
  return git(remote, 'show', `main:${file(name)}`);
}

async function head(): Promise<string> {
  return (await git(remote, 'rev-parse', '--verify', '-q', 'main').catch(() => '')).trim();
}

async function commitsOf(name: string): Promise<string[]> {
  const log = await git(remote, 'log', '--format=%an <%ae>|%s', 'main', '--', file(name));
  return log.split('\n').filter((line) => line);
}

function publish(partition: string, ...bodies: unknown[]): void {
  app.host.eventHubs.publish(HUB, partition, bodies);
}

const alicePatch = auditEvent({
  auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000001',
  verb: 'patch',
  user: 'alice@contoso.com',
  namespace: 'shop',
  name: 'settings',
  resourceVersion: '100',
  data: { mode: 'fast' },
  at: '2026-11-30T10:15:02.100000Z',
});
const firstBatch = body(
  record('kube-audit-admin', alicePatch),
  ...otherRecords(),
  record(
    'kube-audit',
    auditEvent({
      auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000002',
      verb: 'get',
      user: 'alice@contoso.com',
      namespace: 'shop',
      name: 'settings',
      at: '2026-11-30T10:15:02.200000Z',
    }),
  ),
  record(
    'kube-audit',
    auditEvent({
      auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000003',
      verb: 'list',
      user: 'system:serviceaccount:kube-system:replicaset-controller',
      namespace: 'shop',
      name: '',
      at: '2026-11-30T10:15:02.300000Z',
    }),
  ),
  // The same request in the other category: one change, not two.
  record('kube-audit', alicePatch),
  record(
    'kube-audit-admin',
    auditEvent({
      auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000004',
      verb: 'create',
      user: 'system:serviceaccount:batch:job-runner',
      namespace: 'shop',
      name: 'jobs',
      resourceVersion: '101',
      data: { schedule: 'hourly' },
      at: '2026-11-30T10:15:02.400000Z',
    }),
    'object',
  ),
);

describe('the Event Hubs feed', () => {
  it('records each change of a batch once, by its audit user, ignoring get, list and other categories', async () => {
    publish('0', firstBatch);
    await app.advance(5000);
    expect(await commitsOf('settings')).toEqual([
      'alice@contoso.com <alice@contoso.com>|[UPDATE] v1/configmaps shop/settings',
    ]);
    expect(await commitsOf('jobs')).toEqual([
      'ServiceAccount (batch/job-runner) <system-serviceaccount-batch-job-runner@noreply.cluster.local>|[CREATE] v1/configmaps shop/jobs',
    ]);
    expect(await show('settings')).toContain('mode: fast');
    expect(await git(remote, 'rev-list', '--count', 'main')).toBe('2\n');
  });

  it('reports an object the log left out as not recorded, with the reason', async () => {
    publish(
      '0',
      body(
        record(
          'kube-audit-admin',
          auditEvent({
            auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000010',
            verb: 'patch',
            user: 'alice@contoso.com',
            namespace: 'shop',
            name: 'huge',
            resourceVersion: '110',
            at: '2026-11-30T10:15:03.000000Z',
            tooBig: true,
          }),
        ),
      ),
    );
    await app.advance(5000);
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(status.body.refusedWrites.recent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          object: 'v1 configmaps shop/huge',
          cause: expect.stringMatching(/^too-big-for-audit-log: the audit log left the object out/),
        }),
      ]),
    );
    expect(await commitsOf('huge')).toEqual([]);
  });

  it('never lets a change older than one recorded overwrite it, from any partition', async () => {
    publish(
      '1',
      body(
        record(
          'kube-audit-admin',
          auditEvent({
            auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000020',
            verb: 'patch',
            user: 'bob@contoso.com',
            namespace: 'shop',
            name: 'settings',
            resourceVersion: '300',
            data: { mode: 'slow' },
            at: '2026-11-30T10:15:05.000000Z',
          }),
        ),
        record(
          'kube-audit-admin',
          auditEvent({
            auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000021',
            verb: 'delete',
            user: 'bob@contoso.com',
            namespace: 'shop',
            name: 'jobs',
            at: '2026-11-30T10:15:05.500000Z',
          }),
        ),
      ),
    );
    await app.advance(5000);
    const after = await head();
    expect(await show('settings')).toContain('mode: slow');
    expect(await commitsOf('jobs')).toHaveLength(2);
    // Partition 0 is behind: its older changes arrive after the newer ones were committed.
    publish(
      '0',
      body(
        record(
          'kube-audit-admin',
          auditEvent({
            auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000022',
            verb: 'patch',
            user: 'carol@contoso.com',
            namespace: 'shop',
            name: 'settings',
            resourceVersion: '200',
            data: { mode: 'medium' },
            at: '2026-11-30T10:15:04.000000Z',
          }),
        ),
        record(
          'kube-audit-admin',
          auditEvent({
            auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000023',
            verb: 'update',
            user: 'carol@contoso.com',
            namespace: 'shop',
            name: 'jobs',
            resourceVersion: '250',
            data: { schedule: 'daily' },
            at: '2026-11-30T10:15:04.500000Z',
          }),
        ),
      ),
    );
    await app.advance(5000);
    expect(await head()).toBe(after);
    expect(await show('settings')).toContain('mode: slow');
    await expect(show('jobs')).rejects.toThrow();
  });

  it('changes nothing when a batch is delivered again, on another partition', async () => {
    const before = await head();
    publish('1', firstBatch);
    await app.advance(5000);
    expect(await head()).toBe(before);
    const metrics = await app.http('GET', '/metrics');
    expect(metrics.body).toMatch(
      /kubescribe_events_ignored_total\{[^}]*reason="duplicate-delivery"[^}]*\} [1-9]/,
    );
  });

  it('retries a batch that failed after its changes were admitted, and records it once', async () => {
    // Imported once the host runs the app: the app's modules are the ones the host loaded.
    const { appRuntime } =
      jest.requireActual<typeof import('../../functions/runtime')>('../../functions/runtime');
    const runtime = await appRuntime();
    const memory = runtime.feedMemory!;
    const write = memory.write.bind(memory);
    let failing = true;
    memory.write = (key, text, tag) =>
      failing ? Promise.reject(new Error('storage unreachable')) : write(key, text, tag);
    try {
      publish(
        '0',
        body(
          record(
            'kube-audit-admin',
            auditEvent({
              auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000030',
              verb: 'create',
              user: 'alice@contoso.com',
              namespace: 'shop',
              name: 'retried',
              resourceVersion: '400',
              data: { mode: 'once' },
              at: '2026-11-30T10:15:06.000000Z',
            }),
          ),
        ),
      );
      // Its window closes and commits while the batch keeps failing and being retried.
      await app.advance(20_000);
      expect(await commitsOf('retried')).toHaveLength(1);
      const failures = app.logs.filter((line) => line.event === 'EventHubFunctionFailed');
      expect(failures.length).toBeGreaterThanOrEqual(2);
      expect(failures.every((line) => line.retrying === true)).toBe(true);
      failing = false;
      await app.advance(60_000);
    } finally {
      memory.write = write;
    }
    expect(await commitsOf('retried')).toEqual([
      'alice@contoso.com <alice@contoso.com>|[CREATE] v1/configmaps shop/retried',
    ]);
    // Checkpointed once it succeeded: the next event is read after it, the failed batch never again.
    const checkpoint = JSON.parse(
      readFileSync(join(app.dataDir, 'event-hubs', HUB, 'checkpoints', 'kubescribe', '0.json'), 'utf8'),
    );
    const partition = readFileSync(join(app.dataDir, 'event-hubs', HUB, 'partitions', '0.jsonl'));
    expect(checkpoint.offset).toBe(partition.length);
  });

  it('retries a batch that failed before anything was admitted until it is recorded, losing nothing', async () => {
    const { appRuntime } =
      jest.requireActual<typeof import('../../functions/runtime')>('../../functions/runtime');
    const memory = (await appRuntime()).feedMemory!;
    const read = memory.read.bind(memory);
    let failing = true;
    memory.read = (key) => (failing ? Promise.reject(new Error('storage unreachable')) : read(key));
    try {
      publish(
        '1',
        body(
          record(
            'kube-audit-admin',
            auditEvent({
              auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000040',
              verb: 'create',
              user: 'bob@contoso.com',
              namespace: 'shop',
              name: 'late',
              resourceVersion: '500',
              data: { mode: 'kept' },
              at: '2026-11-30T10:15:07.000000Z',
            }),
          ),
        ),
      );
      await app.advance(30_000);
      expect(await commitsOf('late')).toEqual([]);
      failing = false;
      await app.advance(60_000);
    } finally {
      memory.read = read;
    }
    expect(await commitsOf('late')).toEqual([
      'bob@contoso.com <bob@contoso.com>|[CREATE] v1/configmaps shop/late',
    ]);
  });

  it('delivers a batch again after a restart before its checkpoint, and records it once', async () => {
    const { appRuntime } =
      jest.requireActual<typeof import('../../functions/runtime')>('../../functions/runtime');
    const memory = (await appRuntime()).feedMemory!;
    // Admitted, then the feed memory cannot be written: the batch waits for its retry, unchecked.
    memory.write = () => Promise.reject(new Error('storage unreachable'));
    publish(
      '2',
      body(
        record(
          'kube-audit-admin',
          auditEvent({
            auditID: '5b0f9c8e-1d2a-4c3b-9e4f-000000000050',
            verb: 'create',
            user: 'carol@contoso.com',
            namespace: 'shop',
            name: 'restarted',
            resourceVersion: '600',
            data: { mode: 'again' },
            at: '2026-11-30T10:15:08.000000Z',
          }),
        ),
      ),
    );
    await app.advance(3000);
    expect(await commitsOf('restarted')).toHaveLength(1);
    // The new host builds a new runtime (and store): the batch is delivered again from its partition.
    await app.restart();
    await app.advance(10_000);
    expect(await commitsOf('restarted')).toEqual([
      'carol@contoso.com <carol@contoso.com>|[CREATE] v1/configmaps shop/restarted',
    ]);
    const checkpoint = JSON.parse(
      readFileSync(join(app.dataDir, 'event-hubs', HUB, 'checkpoints', 'kubescribe', '2.json'), 'utf8'),
    );
    expect(checkpoint.sequenceNumber).toBe(0);
    expect(
      app.logs.filter((line) => line.event === 'EventHubFunctionFailed' && line.partition === '2'),
    ).toHaveLength(1);
  });
});
