// A long Git outage end to end: a real `git http-backend` behind a fault proxy, the app on the embedded host.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, type AppResponse, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import type { FaultProxy } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;
let proxy: FaultProxy;
let remote: string;
let version = 1000;

beforeAll(async () => {
  served = await startProxiedRemote();
  ({ remote, proxy } = served);
  app = await startAppHost(
    oneTargetConfig({
      url: `${proxy.url}/state.git`,
      limits: { branchBufferBytes: '64Ki', gitCallTimeout: '5s', publishTimeout: '20s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

function configMap(name: string, size: number) {
  return {
    type: 'MODIFIED',
    resource: 'configmaps',
    author: { username: 'alice' },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', resourceVersion: String(version++) },
      data: { payload: 'x'.repeat(size) },
    },
  };
}

async function status() {
  return (await app.http('GET', '/api/v1/targets/prod')).body.publication;
}

describe('while Git is down', () => {
  const accepted: string[] = [];

  it('keeps accepting changes and retries on 10s doubling to 5m', async () => {
    proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 10_000 });
    expect(
      (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('first', 100)] })).status,
    ).toBe(202);
    accepted.push('first');
    await app.advance(6_000);
    expect(await status()).toMatchObject({ pendingWrites: 1, lastError: expect.stringMatching(/.+/) });

    const retryTimes: number[] = [];
    for (let second = 0; second < 12 * 60; second++) {
      const retryAt = (await status()).retryAt as string | null;
      if (retryAt && retryTimes.at(-1) !== Date.parse(retryAt)) retryTimes.push(Date.parse(retryAt));
      await app.advance(1000);
    }
    const delays = retryTimes.slice(1).map((at, index) => (at - retryTimes[index]!) / 1000);
    expect(delays.slice(0, 6)).toEqual([20, 40, 80, 160, 300, 300]);
  });

  it('holds a save whose window closed, saying why', async () => {
    await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('saved', 100)] });
    accepted.push('saved');
    await app.http('POST', '/api/v1/targets/prod/saves', {
      id: 'held-save',
      message: 'Saved during the outage',
      author: { username: 'alice' },
    });
    await app.advance(10_000);
    const save = (await app.http('GET', '/api/v1/targets/prod/saves/held-save')).body;
    expect(save).toMatchObject({ phase: 'WaitingForPush' });
    expect(JSON.stringify(save.conditions)).toMatch(/publication failing/);
  });

  it('pauses intake with 429 and Retry-After once the budget is full, losing nothing accepted', async () => {
    let refused: AppResponse | undefined;
    for (let index = 0; index < 40 && !refused; index++) {
      const name = `filler-${index}`;
      const response = await app.http('POST', '/api/v1/targets/prod/events', {
        events: [configMap(name, 8 * 1024)],
      });
      if (response.status === 202) accepted.push(name);
      else refused = response;
      await app.advance(1000);
    }
    expect(refused).toMatchObject({ status: 429, body: { error: 'intake-paused' } });
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused?.body.message).toMatch(/nothing was accepted/);
    expect(accepted.length).toBeGreaterThan(3);
    // Refused before it was stored: what is pending is only what was accepted, within the budget.
    const publication = await status();
    expect(publication.pendingBytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('publishes everything accepted when Git returns, without another edit, and answers the held save', async () => {
    proxy.reset();
    await app.advance(6 * 60_000);
    expect(await status()).toMatchObject({ pendingWrites: 0, intakePaused: false, retryAt: null });
    const files = await git(remote, 'ls-tree', '-r', '--name-only', 'main');
    for (const name of accepted) expect(files).toContain(`clusters/prod/shop/configmaps/${name}.yaml`);
    const log = await git(remote, 'log', '--format=%H|%s', 'main');
    const saved = log.split('\n').find((line) => line.endsWith('|Saved during the outage'));
    expect(saved).toBeDefined();
    expect((await app.http('GET', '/api/v1/targets/prod/saves/held-save')).body).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: saved!.split('|')[0],
    });
    const trailers = (await git(remote, 'log', '--format=%(trailers:key=Kubescribe-Write,valueonly)', 'main'))
      .split('\n')
      .filter(Boolean);
    expect(new Set(trailers).size).toBe(trailers.length);
    await git(remote, 'fsck', '--strict');
  });
});
