import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalPath, fileName, normalizeWatchEvents } from '../../../shared/resources';

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

describe('the file name of an object with a long name', () => {
  const longName = (length: number, last = 'a') => `${'n'.repeat(length - 1)}${last}`;
  const byteLength = (text: string) => Buffer.byteLength(text);

  it('given a 253-character name (the longest Kubernetes allows) when placed then every path component fits 255 bytes', () => {
    const path = canonicalPath({ targetPath: '.', identity: { ...identity, name: longName(253) } });
    for (const component of path.split('/')) expect(byteLength(component)).toBeLessThanOrEqual(255);
    expect(path.split('/').at(-1)).toMatch(/^n{217}~[0-9a-f]{32}\.yaml$/);
  });

  it('given the longest name whose file name fits when placed then it is kept whole', () => {
    expect(fileName(longName(250))).toBe(`${longName(250)}.yaml`);
    expect(byteLength(fileName(longName(251)))).toBe(255);
  });

  it('given the same long name twice when placed then the same file name, the first characters and the hash of the whole name', () => {
    const name = longName(253);
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 32);
    expect(fileName(name)).toBe(`${name.slice(0, 217)}~${hash}.yaml`);
    expect(fileName(name)).toBe(fileName(name));
  });

  it('given long names that differ only after the kept characters when placed then their files differ', () => {
    expect(fileName(longName(253, 'a'))).not.toBe(fileName(longName(253, 'b')));
  });

  it('given any name when placed then a shortened file name never equals a whole one (no name holds "~")', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/), (name) => {
        const file = fileName(name);
        expect(byteLength(file)).toBeLessThanOrEqual(255);
        expect(file.includes('~')).toBe(name.length > 250);
      }),
      { numRuns: 300, seed: 2026 },
    );
  });

  it('given an upsert and a delete of a long-named object when normalized then both name the same shortened path', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: longName(253), namespace: 'shop' },
      data: { a: 'b' },
    };
    const { changes } = normalizeWatchEvents({
      body: {
        events: [
          { type: 'ADDED', resource: 'configmaps', object },
          { type: 'DELETED', resource: 'configmaps', object },
        ],
      },
      target: { path: 'clusters/prod' },
    });
    expect(changes.map((change) => change.operation)).toEqual(['upsert', 'delete']);
    expect(changes[1]?.path).toBe(changes[0]?.path);
    expect(changes[0]?.path).toBe(`clusters/prod/shop/configmaps/${fileName(longName(253))}`);
    expect(changes[0]?.content).toContain(`  name: ${longName(253)}\n`);
  });
});
