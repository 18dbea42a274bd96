import { normalizeSnapshot, PayloadInvalid } from '../../../shared/resources';

const target = { path: 'clusters/prod' };
const deployment = (name: string, namespace = 'prod') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, resourceVersion: '7' },
  spec: { replicas: 1 },
});

function refusalPaths(body: unknown): string[] {
  try {
    normalizeSnapshot({ body, target });
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadInvalid);
    return (error as PayloadInvalid).data.issues.map((issue) => issue.path);
  }
  throw new Error('expected the snapshot to be refused');
}

describe('scoped snapshots (resync)', () => {
  it('given a scope naming the resource when normalized then bare objects become upserts with the scope and revision', () => {
    const result = normalizeSnapshot({
      body: {
        scope: { group: 'apps', resource: 'deployments', namespace: 'prod' },
        revision: '9001',
        objects: [deployment('api'), deployment('web')],
      },
      target,
    });
    expect(result.scope).toEqual({ group: 'apps', resource: 'deployments', namespace: 'prod' });
    expect(result.revision).toBe('9001');
    expect(result.changes.map((change) => [change.operation, change.path])).toEqual([
      ['upsert', 'clusters/prod/prod/apps/deployments/api.yaml'],
      ['upsert', 'clusters/prod/prod/apps/deployments/web.yaml'],
    ]);
  });

  it('given a whole-target snapshot when normalized then each entry names its resource', () => {
    const result = normalizeSnapshot({
      body: {
        revision: '1',
        objects: [
          { resource: 'deployments', object: deployment('api') },
          {
            resource: 'namespaces',
            object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } },
          },
        ],
      },
      target,
    });
    expect(result.scope).toEqual({});
    expect(result.changes.map((change) => change.path)).toEqual([
      'clusters/prod/prod/apps/deployments/api.yaml',
      'clusters/prod/_cluster/namespaces/prod.yaml',
    ]);
  });

  it('given a bare object and no resource in the scope when normalized then it is refused', () => {
    expect(refusalPaths({ revision: '1', objects: [deployment('api')] })).toEqual(['objects[0]']);
  });

  it('given an object outside the scope when normalized then the snapshot is refused', () => {
    expect(
      refusalPaths({
        scope: { group: 'apps', resource: 'deployments', namespace: 'prod' },
        revision: '1',
        objects: [deployment('api'), deployment('api', 'staging')],
      }),
    ).toEqual(['objects[1]']);
  });

  it('given a resource scope without a group when normalized then it is refused as ambiguous', () => {
    expect(refusalPaths({ scope: { resource: 'configmaps' }, revision: '1', objects: [] })).toEqual([
      'scope.group',
    ]);
  });

  it('given a Secret in a snapshot when normalized then it is ignored with a reason', () => {
    const result = normalizeSnapshot({
      body: {
        scope: { group: '', resource: 'secrets' },
        revision: '1',
        objects: [
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'db', namespace: 'prod' },
            data: { p: 'eA==' },
          },
        ],
      },
      target,
    });
    expect(result.changes).toEqual([]);
    expect(result.ignored).toEqual([expect.objectContaining({ reason: 'sensitive-resource', index: 0 })]);
  });

  it('given no revision when normalized then it is refused', () => {
    expect(refusalPaths({ objects: [] })).toEqual(['revision']);
  });
});
