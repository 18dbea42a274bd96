import { canonicalPath } from '../../../shared/resources';

const identity = { group: 'apps', resource: 'deployments', namespace: 'prod', name: 'api' };

describe('the canonical path of an object', () => {
  it.each([
    ['clusters/prod', identity, 'clusters/prod/prod/apps/deployments/api.yaml'],
    ['.', identity, 'prod/apps/deployments/api.yaml'],
    ['clusters/prod/', identity, 'clusters/prod/prod/apps/deployments/api.yaml'],
    [
      '.',
      { group: '', resource: 'configmaps', namespace: 'default', name: 'app' },
      'default/configmaps/app.yaml',
    ],
    [
      '.',
      { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'admin' },
      '_cluster/rbac.authorization.k8s.io/clusterroles/admin.yaml',
    ],
  ])('given target path %p and %j when placed then the file is %p', (targetPath, id, expected) => {
    expect(canonicalPath({ targetPath, identity: id })).toBe(expected);
  });

  it.each([
    ['a name with a slash', { ...identity, name: 'a/b' }],
    ['a dot-dot name', { ...identity, name: '..' }],
    ['a dot-dot namespace', { ...identity, namespace: '..' }],
    ['a colon name outside RBAC', { ...identity, name: 'system:x' }],
    ['a resource with a slash', { ...identity, resource: 'a/b' }],
    ['a group with a slash', { ...identity, group: 'x/..' }],
  ])('given %s when placed then no path is produced', (_, id) => {
    expect(() => canonicalPath({ targetPath: '.', identity: id })).toThrow(TypeError);
  });

  it.each(['../up', '/abs', 'a/../b', 'a//b'])(
    'given the target path %p when placed then no path is produced',
    (targetPath) => {
      expect(() => canonicalPath({ targetPath, identity })).toThrow(TypeError);
    },
  );
});
