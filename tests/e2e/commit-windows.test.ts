// The app end to end on the embedded host: cluster changes become commits on a local bare repository.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

function configMap(name: string, data: Record<string, string>, resourceVersion: string) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion },
    data,
  };
}

function event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: object, username?: string) {
  return { type, resource: 'configmaps', object, ...(username ? { author: { username } } : {}) };
}

describe('commit windows on the embedded host', () => {
  let app: AppHost;
  let remote: string;

  beforeAll(async () => {
    remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-remote-')), 'state.git'));
    app = await startAppHost(oneTargetConfig({ url: remote }));
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('makes one commit of three quick changes by one author, and another for a second author', async () => {
    const first = await app.http('POST', '/api/v1/targets/prod/events', {
      events: [
        event('ADDED', configMap('a', { k: '1' }, '10'), 'alice'),
        event('ADDED', configMap('b', { k: '1' }, '11'), 'alice'),
      ],
    });
    expect(first).toMatchObject({ status: 202, body: { accepted: 2, ignored: 0 } });
    await app.advance(1000);
    await app.http('POST', '/api/v1/targets/prod/events', {
      events: [event('MODIFIED', configMap('a', { k: '2' }, '12'), 'alice')],
    });
    await app.advance(1000);
    await app.http('POST', '/api/v1/targets/prod/events', {
      events: [event('ADDED', configMap('c', { k: '1' }, '13'), 'bob')],
    });
    await app.advance(30_000);

    const log = await git(remote, 'log', '--format=%an|%s', 'main');
    expect(log.trim().split('\n')).toEqual([
      'bob|[CREATE] v1/configmaps default/c',
      'alice|alice on prod: 2 resource(s)',
    ]);
    expect(await git(remote, 'show', 'main~1:clusters/prod/default/configmaps/a.yaml')).toContain('k: "2"');
    expect(await git(remote, 'ls-tree', '-r', '--name-only', 'main')).toBe(
      [
        'clusters/prod/default/configmaps/a.yaml',
        'clusters/prod/default/configmaps/b.yaml',
        'clusters/prod/default/configmaps/c.yaml',
        '',
      ].join('\n'),
    );
    await git(remote, 'fsck', '--strict');
  });

  it('shows the last push in the target status', async () => {
    const status = await app.http('GET', '/api/v1/targets/prod');
    const head = (await git(remote, 'rev-parse', 'main')).trim();
    expect(status).toMatchObject({
      status: 200,
      body: {
        target: 'prod',
        branch: 'main',
        path: 'clusters/prod',
        publication: { pendingWrites: 0, lastPush: { commit: head } },
      },
    });
  });
});
