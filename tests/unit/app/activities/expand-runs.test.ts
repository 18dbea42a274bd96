// The publish activity reads the runs of changes the branch kept beside its state and decides, for
// them, what the branch decides for inline changes (shared/branch/windows.ts, change-order.ts):
// client signals reach the entity out of order and more than once (Azure Storage control queues
// deliver at least once, and a partition move returns a message after its 5-minute visibility
// timeout: Azure/durabletask AzureStorageOrchestrationServiceSettings `ControlQueueVisibilityTimeout`),
// so two runs may carry one object's changes in the opposite order of their resourceVersions.
import { expandRuns } from '../../../../shared/app/activities/expand-runs';
import type { PendingWrite } from '../../../../shared/branch';
import type { BatchedChange } from '../../../../shared/payloads/change-batches';

const T0 = Date.UTC(2026, 0, 1);

function configMap(name: string, resourceVersion: string, content: number): BatchedChange {
  return {
    path: `clusters/prod/shop/_core/configmaps/${name}.yaml`,
    operation: 'upsert',
    bytes: 100,
    resourceVersion,
    subject: { apiVersion: 'v1', resource: 'configmaps', namespace: 'shop', name },
    content,
  };
}

function write(id: string, runs: PendingWrite['runs']): PendingWrite {
  return {
    id,
    kind: 'window',
    target: 'prod',
    targetPath: 'clusters/prod',
    author: { name: 'alice', username: 'alice' },
    attribution: 'audit',
    message: '',
    decidedAt: new Date(T0 + 10_000).toISOString(),
    prune: 'OnEvent',
    allowEmpty: false,
    saveIds: [],
    bytes: 0,
    items: 1,
    ...(runs ? { runs } : {}),
  };
}

const batches: Record<string, BatchedChange[]> = {
  // the newer request: web at 12, db at 7
  'sha256:b': [configMap('web', '12', 0), configMap('db', '7', 1)],
  // the older request, delivered after it: web at 11, then web at 10 again in the same request
  'sha256:a': [configMap('web', '11', 0), configMap('web', '10', 1), configMap('api', '3', 2)],
};
const changesOf = async (ref: string) => batches[ref]!;

describe('runs read at publication', () => {
  it('leave out a change older than the one kept for its path, as the branch does for inline changes', async () => {
    const { writes, leftOut } = await expandRuns({
      writes: [
        write('w-1', [{ ref: 'sha256:b', first: 0, n: 2, atMs: T0 + 2_000, bytes: 200 }]),
        write('w-2', [{ ref: 'sha256:a', first: 0, n: 3, atMs: T0 + 3_000, bytes: 300 }]),
      ],
      changesOf,
      publishedOrder: () => undefined,
    });
    expect(writes.map((w) => w.changes?.map((c) => `${c.path.split('/').at(-1)} ${c.payloadRef}`))).toEqual([
      ['web.yaml sha256:b#0', 'db.yaml sha256:b#1'],
      ['api.yaml sha256:a#2'],
    ]);
    expect(leftOut.map((left) => `${left.writeId} ${left.path.split('/').at(-1)} ${left.reason}`)).toEqual([
      'w-2 web.yaml older-than-kept',
      'w-2 web.yaml older-than-kept',
    ]);
    // the template message of the changes published: two → group, one → event
    expect(writes.map((w) => w.message)).toEqual([
      'alice on prod: 2 resource(s)',
      '[UPDATE] v1/configmaps shop/api',
    ]);
    expect(writes.every((w) => w.runs === undefined)).toBe(true);
  });

  it('keep the newest change of a path at its first place, and leave out one older than a published change', async () => {
    const { writes } = await expandRuns({
      writes: [write('w-1', [{ ref: 'sha256:a', first: 0, n: 3, atMs: T0, bytes: 300 }])],
      changesOf: async () => [configMap('web', '10', 0), configMap('api', '3', 1), configMap('web', '13', 2)],
      // api at 4 was published minutes ago; this late request's api at 3 must not replace it
      publishedOrder: (_target, path) => (path.endsWith('/api.yaml') ? { resourceVersion: '4' } : undefined),
    });
    expect(writes[0]!.changes?.map((c) => `${c.path.split('/').at(-1)} ${c.payloadRef}`)).toEqual([
      'web.yaml sha256:a#2',
    ]);
  });

  it('publish no change outside its write’s target', async () => {
    const { writes, leftOut } = await expandRuns({
      writes: [write('w-1', [{ ref: 'sha256:x', first: 0, n: 1, atMs: T0, bytes: 1 }])],
      changesOf: async () => [{ ...configMap('web', '1', 0), path: 'clusters/staging/web.yaml' }],
      publishedOrder: () => undefined,
    });
    expect(writes[0]!.changes).toEqual([]);
    expect(leftOut).toEqual([expect.objectContaining({ reason: 'unsafe-path' })]);
  });
});
