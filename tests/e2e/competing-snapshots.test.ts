// Two snapshots of one scope, the second taken after the first, both posted within one window:
// the later one decides what the folder holds; nothing of the earlier one comes back.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(
    join(mkdtempSync(join(tmpdir(), 'kubescribe-snapshots-')), 'state.git'),
  );
  app = await startAppHost(oneTargetConfig({ url: remote, target: { prune: 'Always' } }));
});

afterAll(async () => {
  await app?.stop();
  rmSync(join(remote, '..'), { recursive: true, force: true });
});

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
  const first = await app.http(
    'POST',
    '/api/v1/targets/prod/snapshots',
    snapshot('100', [configMap('kept', 'old'), configMap('dropped', 'x')]),
  );
  expect(first.status).toBe(202);
  await app.advance(1000);
  const second = await app.http(
    'POST',
    '/api/v1/targets/prod/snapshots',
    snapshot('120', [configMap('kept', 'new')]),
  );
  expect(second.status).toBe(202);
  await app.advance(10_000);

  const files = await git(remote, 'ls-tree', '-r', '--name-only', 'main');
  expect(files.trim().split('\n')).toEqual(['clusters/prod/shop/configmaps/kept.yaml']);
  expect(await git(remote, 'show', 'main:clusters/prod/shop/configmaps/kept.yaml')).toContain('value: new');
});
