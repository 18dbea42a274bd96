// Two snapshots of one scope, the second taken after the first, both posted within one window:
// the later one decides what the folder holds; nothing of the earlier one comes back.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { appOnNewRepository, git, oneTargetConfig } from '../support/app/app-host';

const world = appOnNewRepository((url) => oneTargetConfig({ url, target: { prune: 'Always' } }));

const configMap = (name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop' },
  data: { value },
});

const snapshot = (revision: string, objects: object[]) => ({
  scope: { group: '', resource: 'configmaps', namespace: 'shop' },
  revision,
  objects,
});

it('given two snapshots of one scope in one window, publishes what the later one holds', async () => {
  const first = await world.app.http(
    'POST',
    '/api/v1/targets/prod/snapshots',
    snapshot('100', [configMap('kept', 'old'), configMap('dropped', 'x')]),
  );
  expect(first.status).toBe(202);
  await world.app.advance(1000);
  const second = await world.app.http(
    'POST',
    '/api/v1/targets/prod/snapshots',
    snapshot('120', [configMap('kept', 'new')]),
  );
  expect(second.status).toBe(202);
  await world.app.advance(10_000);

  const files = await git(world.remote, 'ls-tree', '-r', '--name-only', 'main');
  expect(files.trim().split('\n')).toEqual(['clusters/prod/shop/configmaps/kept.yaml']);
  expect(await git(world.remote, 'show', 'main:clusters/prod/shop/configmaps/kept.yaml')).toContain(
    'value: new',
  );
});
