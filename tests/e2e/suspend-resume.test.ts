// Suspend and resume end to end: a suspended target keeps what it accepts and publishes nothing until
// it resumes; a target its configuration suspends cannot be resumed over HTTP.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { appOnNewRepository, git } from '../support/app/app-host';

const running = appOnNewRepository((url) => ({
  repositories: [{ name: 'state', url }],
  targets: [
    { name: 'prod', repository: 'state', branch: 'main', path: 'clusters/prod' },
    { name: 'staging', repository: 'state', branch: 'staging', path: 'clusters/staging', suspend: true },
  ],
  server: { auth: 'disabled' },
}));
let version = 10;

function configMap(name: string) {
  return {
    type: 'ADDED',
    resource: 'configmaps',
    author: { username: 'alice' },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', resourceVersion: String(version++) },
    },
  };
}

async function commits(branch: string): Promise<string[]> {
  const heads = await git(running.remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads');
  if (!heads.split('\n').includes(branch)) return [];
  return (await git(running.remote, 'log', '--format=%s', branch)).trim().split('\n');
}

async function files(branch: string): Promise<string[]> {
  return (await git(running.remote, 'ls-tree', '-r', '--name-only', branch)).trim().split('\n');
}

describe('a target suspended over HTTP', () => {
  it('keeps the changes it accepts and publishes none of them', async () => {
    const { app } = running;
    const suspended = await app.http('POST', '/api/v1/targets/prod/suspend');
    expect(suspended).toMatchObject({ status: 202, body: { target: 'prod', suspended: true } });
    expect(
      (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('web')] })).status,
    ).toBe(202);
    await app.advance(10 * 60_000);
    expect(await commits('main')).toEqual([]);

    const status = (await app.http('GET', '/api/v1/targets/prod')).body;
    expect(status.suspension).toMatchObject({ suspended: true, by: ['operator'], publicationHeldBy: 'prod' });
    expect(status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Suspended', status: 'True', reason: 'SuspendedByOperator' }),
    );
    expect(status.publication).toMatchObject({ pendingWrites: 1, retryAt: null });
    const listed = (await app.http('GET', '/api/v1/targets')).body.targets;
    expect(listed.find((t: { name: string }) => t.name === 'prod')).toMatchObject({ suspended: true });
  });

  it('publishes what it kept once resumed', async () => {
    const { app } = running;
    expect((await app.http('POST', '/api/v1/targets/prod/resume')).status).toBe(202);
    await app.advance(1_000);
    expect(await commits('main')).toHaveLength(1);
    expect(await files('main')).toEqual(['clusters/prod/shop/configmaps/web.yaml']);
    const status = (await app.http('GET', '/api/v1/targets/prod')).body;
    expect(status.suspension).toMatchObject({ suspended: false, by: [] });
    expect(status.conditions.map((c: { type: string }) => c.type)).not.toContain('Suspended');
    expect(status.publication.pendingWrites).toBe(0);
  });
});

describe('a target its configuration suspends', () => {
  it('keeps its changes, and refuses a resume over HTTP with 409 naming the configuration', async () => {
    const { app } = running;
    expect(
      (await app.http('POST', '/api/v1/targets/staging/events', { events: [configMap('api')] })).status,
    ).toBe(202);
    await app.advance(60_000);
    expect(await commits('staging')).toEqual([]);
    const resume = await app.http('POST', '/api/v1/targets/staging/resume');
    expect(resume.status).toBe(409);
    expect(resume.body).toMatchObject({
      error: 'suspended-by-configuration',
      message: expect.stringContaining('suspend: true'),
    });
    const status = (await app.http('GET', '/api/v1/targets/staging')).body;
    expect(status.suspension).toMatchObject({ suspended: true, by: ['configuration'] });
    expect(status.publication.pendingWrites).toBe(1);
  });
});
