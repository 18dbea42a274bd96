import {
  snapshotSweep,
  toGitWrites,
  toPublicationResult,
} from '../../../../shared/app/activities/git-writes';
import type { PendingWrite } from '../../../../shared/branch';

const committer = { name: 'kubescribe', email: 'kubescribe@example.invalid' };

function write(overrides: Partial<PendingWrite>): PendingWrite {
  return {
    id: '20260101T000000000Z-1',
    kind: 'window',
    target: 'prod',
    targetPath: 'clusters/prod',
    author: { name: 'alice', email: 'alice@example.com', username: 'alice' },
    attribution: 'watch',
    message: 'alice on prod: 2 resource(s)',
    decidedAt: '2026-01-01T00:00:05.000Z',
    prune: 'OnEvent',
    allowEmpty: false,
    saveIds: [],
    bytes: 0,
    items: 1,
    ...overrides,
  };
}

const payloads: Record<string, string> = {
  'sha256:a': 'kind: ConfigMap\n',
  'sha256:part1': JSON.stringify({
    files: [{ path: 'clusters/prod/shop/apps/deployments/web.yaml', content: 'kind: Deployment\n' }],
    deletes: [],
  }),
  'sha256:part2': JSON.stringify({ files: [], deletes: ['clusters/prod/shop/apps/deployments/old.yaml'] }),
};
const readPayload = async (ref: string) => new TextEncoder().encode(payloads[ref]);

describe('pending writes as Git writes', () => {
  it('turns changes into puts and deletes with the author and the decision time', async () => {
    const [gitWrite] = await toGitWrites({
      writes: [
        write({
          changes: [
            {
              path: 'clusters/prod/shop/configmaps/a.yaml',
              operation: 'upsert',
              payloadRef: 'sha256:a',
              bytes: 16,
            },
            { path: 'clusters/prod/shop/configmaps/b.yaml', operation: 'delete', bytes: 0 },
          ],
        }),
      ],
      committer,
      readPayload,
      snapshotParts: {},
    });
    expect(gitWrite).toEqual({
      id: '20260101T000000000Z-1',
      message: 'alice on prod: 2 resource(s)',
      author: { name: 'alice', email: 'alice@example.com', timestamp: 1767225605, timezoneOffset: 0 },
      committer: {
        name: 'kubescribe',
        email: 'kubescribe@example.invalid',
        timestamp: 1767225605,
        timezoneOffset: 0,
      },
      targetPath: 'clusters/prod',
      operations: [
        {
          op: 'put',
          path: 'clusters/prod/shop/configmaps/a.yaml',
          content: new TextEncoder().encode('kind: ConfigMap\n'),
        },
        { op: 'delete', path: 'clusters/prod/shop/configmaps/b.yaml' },
      ],
      describe: expect.any(Function),
    });
    // the commit body names each object of the target by its path; other files are no object
    expect(gitWrite?.describe?.('clusters/prod/shop/apps/deployments/web.yaml')).toBe(
      'deployments.apps shop/web',
    );
    expect(gitWrite?.describe?.('clusters/prod/_cluster/namespaces/shop.yaml')).toBe('namespaces shop');
    expect(gitWrite?.describe?.('clusters/prod/shop/secrets/db.sops.yaml')).toBe('secrets shop/db');
    expect(gitWrite?.describe?.('clusters/prod/.sops.yaml')).toBeUndefined();
    expect(gitWrite?.describe?.('clusters/other/shop/configmaps/a.yaml')).toBeUndefined();
  });

  it('authors a write that names nobody as the committer', async () => {
    const [gitWrite] = await toGitWrites({
      writes: [write({ attribution: 'configured', author: { name: 'kubescribe' }, changes: [] })],
      committer,
      readPayload,
      snapshotParts: {},
    });
    expect(gitWrite?.author).toMatchObject({ name: 'kubescribe', email: 'kubescribe@example.invalid' });
  });

  it("reads a snapshot's parts as one scoped sweep, part by part as the build asks, then its deletes", async () => {
    const read: string[] = [];
    const [gitWrite] = await toGitWrites({
      writes: [
        write({
          kind: 'snapshot',
          prune: 'Always',
          snapshot: {
            scope: { group: 'apps', resource: 'deployments' },
            revision: '7',
            payloadRef: 'snapshot:s',
            bytes: 17,
          },
        }),
      ],
      committer,
      readPayload: (ref) => {
        read.push(ref);
        return readPayload(ref);
      },
      snapshotParts: { 'snapshot:s': ['sha256:part1', 'sha256:part2'] },
    });
    const [snapshot, ...others] = gitWrite?.operations ?? [];
    if (snapshot?.op !== 'snapshot' || typeof snapshot.files !== 'function')
      throw new Error(`not a snapshot read part by part: ${JSON.stringify(snapshot)}`);
    expect(others).toEqual([]);
    expect(snapshot).toMatchObject({
      ...snapshotSweep('clusters/prod', { group: 'apps', resource: 'deployments' }),
      prune: 'Always',
    });
    // nothing is read before the build asks for the parts, and each part only when it is reached
    expect(read).toEqual([]);
    const parts = snapshot.files()[Symbol.asyncIterator]();
    expect((await parts.next()).value).toEqual([
      { path: 'clusters/prod/shop/apps/deployments/web.yaml', content: 'kind: Deployment\n' },
    ]);
    expect(read).toEqual(['sha256:part1']);
    expect((await parts.next()).value).toEqual([]);
    expect((await parts.next()).done).toBe(true);
    expect(read).toEqual(['sha256:part1', 'sha256:part2']);
    expect(snapshot.after?.()).toEqual([
      { op: 'delete', path: 'clusters/prod/shop/apps/deployments/old.yaml' },
    ]);
  });

  it("marks a save's empty record to commit even with no change", async () => {
    const [gitWrite] = await toGitWrites({
      writes: [write({ kind: 'save-record', allowEmpty: true })],
      committer,
      readPayload,
      snapshotParts: {},
    });
    expect(gitWrite).toMatchObject({ empty: true, operations: [] });
  });
});

describe('the sweep of a snapshot scope', () => {
  const covered = (targetPath: string, scope: object, paths: string[]) => {
    const sweep = snapshotSweep(targetPath, scope);
    const inside = sweep.scope === '.' ? '' : `${sweep.scope}/`;
    return paths.filter(
      (path) => path.startsWith(inside) && new RegExp(sweep.match).test(path.slice(inside.length)),
    );
  };
  const repository = [
    'README.md',
    '.sops.yaml',
    '.github/workflows/ci.yaml',
    'shop/apps/deployments/web.yaml',
    'shop/configmaps/settings.yaml',
    'shop/notes.txt',
    'shop/configmaps/.keep',
    'other/configmaps/x.yaml',
    '_cluster/rbac.authorization.k8s.io/clusterroles/system:auth.yaml',
    '_cluster/namespaces/shop.yaml',
  ];
  const canonical = repository.filter(
    (path) => /^(shop|other|_cluster)\/.*\.yaml$/.test(path) && !path.includes('/.'),
  );

  it('covers only canonical resource files, whatever a root target holds beside them', () => {
    expect(covered('.', {}, repository)).toEqual(canonical);
  });

  it.each([
    [{ namespace: 'shop' }, ['shop/apps/deployments/web.yaml', 'shop/configmaps/settings.yaml']],
    [{ namespace: 'shop', group: '', resource: 'configmaps' }, ['shop/configmaps/settings.yaml']],
    [{ namespace: 'shop', group: 'apps', resource: 'deployments' }, ['shop/apps/deployments/web.yaml']],
    [{ group: '', resource: 'configmaps' }, ['shop/configmaps/settings.yaml', 'other/configmaps/x.yaml']],
    [{ group: 'apps' }, ['shop/apps/deployments/web.yaml']],
    [
      { group: 'rbac.authorization.k8s.io' },
      ['_cluster/rbac.authorization.k8s.io/clusterroles/system:auth.yaml'],
    ],
  ])('covers, for scope %j, exactly %j', (scope, expected) => {
    expect(covered('.', scope, repository)).toEqual(expected);
    const prefixed = repository.map((path) => `clusters/prod/${path}`);
    expect(covered('clusters/prod', scope, prefixed)).toEqual(
      expected.map((path) => `clusters/prod/${path}`),
    );
  });
});

describe('publication results as the branch records them', () => {
  it('records a publication settled by remote evidence as settled', () => {
    expect(
      toPublicationResult({
        kind: 'published',
        commits: { w: 'c'.repeat(40) },
        head: 'c'.repeat(40),
        settledByRemoteEvidence: true,
        attempts: 1,
      }),
    ).toEqual({
      outcome: 'settled',
      commits: { w: 'c'.repeat(40) },
      head: 'c'.repeat(40),
    });
  });

  it.each([
    [
      { kind: 'timeout', step: 'push', afterMs: 120000 },
      { outcome: 'transient', cause: { message: 'push timed out after 120000 ms' } },
    ],
    [
      { kind: 'authFailed', cause: '401' },
      { outcome: 'credentialsRefused', cause: { message: 'authentication failed: 401' } },
    ],
    [
      { kind: 'parentMissing', parentBranch: 'release' },
      { outcome: 'parentMissing', cause: { message: 'the parent branch "release" does not exist' } },
    ],
    [
      { kind: 'transient', step: 'push', cause: 'HTTP 429', retryAfterMs: 30000 },
      { outcome: 'transient', cause: { message: 'push: HTTP 429' }, retryAfterMs: 30000 },
    ],
    [
      { kind: 'writeRefused', writeId: 'w', cause: 'outside' },
      { outcome: 'writeRefused', writeId: 'w', cause: { message: 'outside' } },
    ],
  ] as const)('maps %j', (result, expected) => {
    expect(toPublicationResult(result)).toEqual(expected);
  });
});
