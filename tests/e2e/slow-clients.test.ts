// Slow clients against the app on the embedded host: requests with valid tokens that send their
// body a byte at a time hold their slots only until the request deadline, one token never holds
// more than its share, and the liveness probe and the Prometheus scrape are answered throughout
// (a kubelet restarts a pod whose liveness probe fails: deploy/kubescribe). Node's server enforces
// the deadlines on real time (lib/_http_server.js, checkConnections), so they are short here.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, startAppHost } from '../support/app/app-host';
import { type RawAnswer, rawRequest } from '../support/http/raw-request';

const TOKEN_A = 'cluster-a-token-0123456789';
const TOKEN_B = 'cluster-b-token-0123456789';
const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 4_000;
let app: AppHost;

beforeAll(async () => {
  const remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-slow-')), 'state.git'));
  app = await startAppHost(
    {
      repositories: [{ name: 'state', url: remote }],
      targets: [{ name: 'prod', repository: 'state', branch: 'main', path: 'clusters/prod' }],
      sources: [
        { name: 'cluster-a', tokenEnv: 'TOKEN_A', targets: ['*'] },
        { name: 'cluster-b', tokenEnv: 'TOKEN_B', targets: ['*'] },
      ],
    },
    { TOKEN_A, TOKEN_B },
    {
      server: {
        maxConcurrentRequests: 8,
        maxRequestsPerSource: 4,
        headersTimeoutMs: HEADERS_TIMEOUT_MS,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      },
    },
  );
});

afterAll(async () => {
  await app?.stop();
});

/** A POST whose headers are complete and whose body (1,000 bytes declared) has sent one byte. */
function trickling(token: string) {
  return rawRequest(app.host.url, {
    method: 'POST',
    path: '/api/v1/targets/prod/events',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    declare: 1000,
    body: '{',
  });
}

/** Sends `request` until it is answered `status` (the slow requests reach the server in their own time). */
async function untilAnswered(status: number, request: () => Promise<RawAnswer>): Promise<RawAnswer> {
  let answer = await request();
  for (let i = 0; i < 200 && answer.status !== status; i++) answer = await request();
  return answer;
}

const get = (path: string, token?: string) =>
  rawRequest(app.host.url, { path, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) })
    .answer;

describe('slow clients holding every request slot', () => {
  const slow: ReturnType<typeof trickling>[] = [];

  it('let one token hold only its share: its next request is 429 with Retry-After', async () => {
    for (let i = 0; i < 4; i++) slow.push(trickling(TOKEN_A));
    const refused = await untilAnswered(429, () => get('/api/v1/targets', TOKEN_A));
    expect(refused).toMatchObject({
      status: 429,
      headers: { 'retry-after': '1' },
      body: { error: 'too-many-requests', message: expect.stringContaining('4 requests in flight') },
    });
    // another source still gets in
    expect((await get('/api/v1/targets', TOKEN_B)).status).toBe(200);
  });

  it('fill the host: other requests are 503, while the liveness probe and the scrape are answered', async () => {
    for (let i = 0; i < 4; i++) slow.push(trickling(TOKEN_B));
    const full = await untilAnswered(503, () => get('/api/v1/targets'));
    expect(full).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1' },
      body: { error: 'not-ready' },
    });
    for (let i = 0; i < 3; i++) {
      expect(await get('/api/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const scrape = await get('/metrics');
      expect(scrape.status).toBe(200);
      expect(String(scrape.body)).toContain('kubescribe_');
    }
  });

  it('are answered 408 at the request deadline, and the slots are free again', async () => {
    const started = performance.now();
    const answers = await Promise.all(slow.map((request) => request.answer));
    for (const answer of answers) {
      expect(answer).toMatchObject({
        status: 408,
        body: { error: 'request-timeout', message: expect.stringContaining(`${REQUEST_TIMEOUT_MS} ms`) },
      });
    }
    expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
    expect((await get('/api/v1/targets', TOKEN_A)).status).toBe(200);
    expect((await get('/api/v1/targets')).status).toBe(401);
  });
});

it('answers 408 to a client that trickles its headers', async () => {
  const { hostname, port } = new URL(app.host.url);
  const socket = connect(Number(port), hostname);
  let reply = '';
  socket.on('data', (chunk: Buffer) => {
    reply += chunk.toString('utf8');
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`GET /api/healthz HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Slow: `);
  // one byte every 100 ms: always sending, never done
  const drip = setInterval(() => socket.writable && socket.write('a'), 100);
  const started = performance.now();
  await closed;
  clearInterval(drip);
  expect(performance.now() - started).toBeLessThan(HEADERS_TIMEOUT_MS + 2_000);
  expect(reply).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(JSON.parse(reply.split('\r\n\r\n')[1]!)).toEqual({
    error: 'request-timeout',
    message: `The request headers were not received within ${HEADERS_TIMEOUT_MS} ms.`,
  });
});
