// What a local process or a hostile page can do to the embedded host's two servers: nothing
// without the RPC API's secret or a name the server answers to, and no request stalls the host.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { startTestHost, type TestHost } from '../support/embedded/in-process-host';
import { rawRequest } from '../support/http/raw-request';

const APP = require.resolve('../support/embedded/sample-app');
let t: TestHost;
afterEach(async () => {
  await t.stop();
});

/** The RPC API's origin and its secret (the first segment of the base URL's path). */
function rpcParts(): { origin: string; secret: string } {
  const url = new URL(t.host.rpcBaseUrl);
  return { origin: url.origin, secret: url.pathname.split('/')[1]! };
}

describe('the durable client RPC API', () => {
  beforeEach(async () => {
    t = await startTestHost(APP);
  });

  it('refuses a call without the secret, or with another, with 401 and does nothing', async () => {
    const { origin, secret } = rpcParts();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    for (const path of [
      '/durabletask/entities/Counter/r1?op=add',
      `/x${secret}/durabletask/entities/Counter/r1?op=add`,
    ]) {
      const { answer } = rawRequest(origin, { method: 'POST', path, body: '4' });
      expect((await answer).status).toBe(401);
    }
    const { answer: start } = rawRequest(origin, {
      method: 'POST',
      path: '/durabletask/orchestrators/Hello/h1',
    });
    expect((await start).status).toBe(401);
    await t.host.waitForIdle();
    expect(t.host.client.readEntityState('Counter', 'r1')).toEqual({ exists: false });
    expect(t.host.client.getStatus('h1')).toBeUndefined();
  });

  it('refuses a Host that is not a loopback name with 421, even with the secret', async () => {
    const { origin, secret } = rpcParts();
    const { answer } = rawRequest(origin, {
      method: 'POST',
      path: `/${secret}/durabletask/entities/Counter/r1?op=add`,
      headers: { host: 'rebound.attacker.example' },
      body: '4',
    });
    expect((await answer).status).toBe(421);
    const { answer: local } = rawRequest(origin, {
      method: 'POST',
      path: `/${secret}/durabletask/entities/Counter/r1?op=add`,
      headers: { host: `localhost:${new URL(origin).port}` },
      body: '4',
    });
    expect((await local).status).toBe(202);
  });

  it('answers a path that is not valid percent-encoding with 400', async () => {
    const { origin, secret } = rpcParts();
    const { answer } = rawRequest(origin, { path: `/${secret}/durabletask/instances/%E0%A4%A` });
    expect(await answer).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/percent-encoding/) },
    });
  });

  it('never logs the base URL or its secret', async () => {
    await t.http('POST', '/api/approvals/1');
    await t.host.waitForIdle();
    expect(JSON.stringify(t.logs)).not.toContain(rpcParts().secret);
    expect(t.logs.find((l) => l.event === 'HostStarted')).toMatchObject({ rpcPort: expect.any(Number) });
  });
});

describe("the app's HTTP server", () => {
  it('refuses a Host it does not answer to with 421 and a malformed one with 400, running no function', async () => {
    t = await startTestHost(APP);
    const misdirected = rawRequest(t.host.url, {
      method: 'POST',
      path: '/api/approvals/7',
      headers: { host: 'rebound.attacker.example' },
    });
    expect(await misdirected.answer).toMatchObject({ status: 421, body: { error: 'misdirected-request' } });
    const malformed = rawRequest(t.host.url, {
      method: 'POST',
      path: '/api/approvals/7',
      headers: { host: 'a b/c' },
    });
    expect(await malformed.answer).toMatchObject({ status: 400, body: { error: 'invalid-input' } });
    await t.host.waitForIdle();
    expect(t.host.client.getStatus('approval-7')).toBeUndefined();
    expect(t.logs.some((l) => l.event === 'HttpFunctionFailed')).toBe(false);
  });

  it('answers a route parameter that is not valid percent-encoding with 400 and logs no failure', async () => {
    t = await startTestHost(APP);
    const { answer } = rawRequest(t.host.url, { path: '/api/files/a/%E0%A4%A' });
    expect(await answer).toMatchObject({
      status: 400,
      body: { error: 'invalid-input', message: expect.stringMatching(/percent-encoding/) },
    });
    expect(t.logs.some((l) => l.event === 'HttpFunctionFailed')).toBe(false);
  });

  it('lets a function answer before the body it does not read has arrived', async () => {
    t = await startTestHost(APP);
    const { answer, req } = rawRequest(t.host.url, {
      method: 'POST',
      path: '/api/approvals/9',
      declare: 5 * 1024 * 1024,
      body: '{"padding": "',
    });
    expect(await answer).toMatchObject({ status: 202, body: { instanceId: 'approval-9' } });
    req.destroy();
  });

  it('answers requests beyond maxConcurrentRequests with 503 and Retry-After, and serves again once one ends', async () => {
    t = await startTestHost(APP, { maxConcurrentRequests: 1 });
    const held = rawRequest(t.host.url, { method: 'POST', path: '/api/echo', declare: 5, body: 'he' });
    // The echo function is now waiting for the rest of its body.
    let refused = await rawRequest(t.host.url, { path: '/api/items/special' }).answer;
    for (let i = 0; i < 100 && refused.status !== 503; i++)
      refused = await rawRequest(t.host.url, { path: '/api/items/special' }).answer;
    expect(refused).toMatchObject({
      status: 503,
      body: { error: 'not-ready' },
      headers: { 'retry-after': '1' },
    });
    held.req.end('llo');
    expect(await held.answer).toMatchObject({ status: 201, body: 'hello' });
    expect(await rawRequest(t.host.url, { path: '/api/items/special' }).answer).toMatchObject({
      status: 200,
    });
  });
});
