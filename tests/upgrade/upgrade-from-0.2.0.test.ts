jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { git } from '../support/app/app-host';
import { upgradeFrom } from './upgrade-from';

const upgraded = upgradeFrom('0.2.0');

// 0.2.0 stored branch state version 2, which knew no suspension: the upgraded branch (now version 3)
// suspends and resumes its target like a new one.
it('suspends and resumes a target of the branch 0.2.0 stored', async () => {
  const { app, remote } = upgraded;
  const head = (await git(remote, 'rev-parse', 'main')).trim();
  expect((await app.http('POST', '/api/v1/targets/prod/suspend')).status).toBe(202);
  const event = {
    type: 'MODIFIED',
    resource: 'configmaps',
    author: { username: 'dave' },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-upgrade', namespace: 'shop' } },
  };
  expect((await app.http('POST', '/api/v1/targets/prod/events', { events: [event] })).status).toBe(202);
  await app.advance(60_000);
  expect((await git(remote, 'rev-parse', 'main')).trim()).toBe(head);
  expect((await app.http('GET', '/api/v1/targets/prod')).body.suspension).toMatchObject({
    suspended: true,
    by: ['operator'],
  });

  expect((await app.http('POST', '/api/v1/targets/prod/resume')).status).toBe(202);
  await app.advance(15_000);
  expect((await git(remote, 'log', '-1', '--format=%an', 'main')).trim()).toBe('dave');
});

// A configuration written before `targets[].paths` existed keeps the native paths: the repository
// 0.2.0 wrote gets no file moved, and a new object is written where 0.2.0 would have written it.
it('keeps an existing repository’s paths: names are written as 0.2.0 wrote them', async () => {
  const { app, remote } = upgraded;
  const files = async () => (await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');
  const before = await files();
  const events = [
    {
      type: 'ADDED',
      resource: 'clusterroles',
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'system:aggregate-to-admin' },
        rules: [],
      },
    },
    {
      type: 'ADDED',
      resource: 'configmaps',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'aux', namespace: 'con' } },
    },
  ];
  expect((await app.http('POST', '/api/v1/targets/prod/events', { events })).status).toBe(202);
  await app.advance(15_000);
  expect((await files()).sort()).toEqual(
    [
      ...before,
      'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/system:aggregate-to-admin.yaml',
      'clusters/prod/con/configmaps/aux.yaml',
    ].sort(),
  );
});
