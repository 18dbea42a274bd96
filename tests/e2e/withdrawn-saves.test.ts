// A withdrawn save stays readable: GET shows it Resolved/Withdrawn for as long as its receipt is kept.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, oneTargetConfig, startAppHost } from '../support/app/app-host';

let app: AppHost;

beforeAll(async () => {
  const remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-withdrawn-')), 'state.git'));
  app = await startAppHost(oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }));
});

afterAll(async () => {
  await app?.stop();
});

const saveStatus = (id: string) => app.http('GET', `/api/v1/targets/prod/saves/${id}`);

describe('a withdrawn save', () => {
  it('reads Resolved/Withdrawn right after the DELETE that withdrew it while it waited', async () => {
    const registered = await app.http('POST', '/api/v1/targets/prod/saves', {
      id: 'waiting',
      author: { username: 'alice' },
      window: { attachTimeout: '60s' },
    });
    expect(registered.status).toBe(202);
    await app.advance(1000);
    expect((await saveStatus('waiting')).body).toMatchObject({ phase: 'WaitingForWindow' });
    const withdrawn = await app.http('DELETE', '/api/v1/targets/prod/saves/waiting');
    expect(withdrawn).toMatchObject({ status: 200, body: { outcome: 'Withdrawn' } });
    expect(await saveStatus('waiting')).toMatchObject({
      status: 200,
      body: { id: 'waiting', phase: 'Resolved', outcome: 'Withdrawn', target: 'prod', branch: 'main' },
    });
  });

  it('reads Resolved/Withdrawn right after a DELETE of an id not registered yet', async () => {
    expect(await saveStatus('early')).toMatchObject({ status: 404 });
    const withdrawn = await app.http('DELETE', '/api/v1/targets/prod/saves/early');
    expect(withdrawn).toMatchObject({ status: 200, body: { outcome: 'Withdrawn' } });
    expect(await saveStatus('early')).toMatchObject({
      status: 200,
      body: { id: 'early', phase: 'Resolved', outcome: 'Withdrawn' },
    });
  });
});
