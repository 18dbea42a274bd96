// Generated requests against the real app on the embedded host: odd paths, methods, headers,
// tokens and bodies (huge, deep, malformed, almost right). Every answer is 2xx or one of the
// contract's 4xx codes (shared/api/errors.ts), the host stays up, and an ordinary change posted
// afterwards is published.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { API_ERRORS } from '../../shared/api/errors';
import { type AppHost, createBareRepository, git, startAppHost } from '../support/app/app-host';

const TOKEN = 'fuzz-source-token-5e81c0';
const RUNS = 150;
const SEED = 20260415;

let app: AppHost;
let remoteDir: string;
let remote: string;

beforeAll(async () => {
  remoteDir = mkdtempSync(join(tmpdir(), 'ks-http-fuzz-'));
  remote = await createBareRepository(join(remoteDir, 'state.git'));
  app = await startAppHost(
    {
      repositories: [
        {
          name: 'state',
          url: remote,
          committer: { name: 'kubescribe', email: 'kubescribe@example.invalid' },
        },
      ],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: 'clusters/prod',
          window: { idleTimeout: '2s', maxDuration: '1m' },
        },
      ],
      sources: [{ name: 'cluster-prod', tokenEnv: 'KS_FUZZ_TOKEN', targets: ['prod'] }],
      server: { auth: 'required' },
      limits: { pushCooldown: '0s' },
    },
    { KS_FUZZ_TOKEN: TOKEN },
  );
});

afterAll(async () => {
  await app?.stop();
  if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
});

const CONTRACT_STATUSES = new Set<number>(Object.values(API_ERRORS).map((error) => error.status));

/** The error codes an answer may carry: the contract's, and the host's own for a path no route serves (docs/api.md). */
const ERROR_STATUS: Record<string, number> = {
  ...Object.fromEntries(Object.entries(API_ERRORS).map(([code, error]) => [code, error.status])),
  'not-found': 404,
  'misdirected-request': 421,
};

/** Printable ASCII: what an HTTP client can put in a header value. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
});

const kubeName = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/),
  fc.constantFrom('..', '.', 'a/b', '/etc/passwd', 'CON', 'nul', 'a.', 'A', 'system:admin', '~x', ''),
  fc.string({ maxLength: 300 }),
);

const author = fc.oneof(
  fc.record({ username: fc.string({ maxLength: 300 }) }, { requiredKeys: [] }),
  fc.record({
    username: fc.string({ minLength: 1, maxLength: 40 }),
    uid: fc.string(),
    groups: fc.array(fc.string()),
  }),
  fc.jsonValue(),
);

const kubeObject = fc.record(
  {
    apiVersion: fc.constantFrom('v1', 'apps/v1', 'authentication.k8s.io/v1', 'x/y/z', ''),
    kind: fc.constantFrom('ConfigMap', 'Deployment', 'Secret', 'TokenReview', 'Status', '1Bad'),
    metadata: fc.record(
      { name: kubeName, namespace: kubeName, labels: fc.dictionary(fc.string(), fc.jsonValue()) },
      { requiredKeys: [] },
    ),
    data: fc.jsonValue(),
    spec: fc.jsonValue(),
  },
  { requiredKeys: ['metadata'] },
);

/** A ConfigMap whose `data` nests `levels` maps, as text (stringifying it could overflow the stack). */
function deepConfigMap(levels: number): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"shop"},"data":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
}

const deepText = fc
  .oneof(fc.constantFrom(99, 100, 101, 3000, 100_000), fc.noBias(fc.integer({ min: 90, max: 200_000 })))
  .chain((levels) =>
    fc.constantFrom(
      `{"events":[{"type":"ADDED","resource":"configmaps","object":${deepConfigMap(levels)}}]}`,
      `{"revision":"1","objects":[{"resource":"configmaps","object":${deepConfigMap(levels)}}]}`,
      `{"objects":[{"resource":"configmaps","object":${deepConfigMap(levels)}}]}`,
      `{"apiVersion":"audit.k8s.io/v1","kind":"EventList","items":[{"auditID":"d","stage":"ResponseComplete","verb":"create","requestURI":"/","user":{"username":"u"},"objectRef":{"resource":"configmaps","namespace":"shop","apiVersion":"v1"},"responseStatus":{"code":201},"responseObject":${deepConfigMap(levels)}}]}`,
      `${'['.repeat(levels)}${']'.repeat(levels)}`,
      `${'{"a":'.repeat(levels)}`,
    ),
  );

const body = fc.oneof(
  { arbitrary: deepText, weight: 4 },
  fc.record({
    events: fc.array(
      fc.record(
        {
          type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
          resource: fc.constantFrom('configmaps', 'secrets', 'tokenreviews', '../x'),
          object: kubeObject,
          author,
        },
        { requiredKeys: ['type', 'resource', 'object'] },
      ),
      { maxLength: 5 },
    ),
  }),
  fc.record({
    apiVersion: fc.constant('audit.k8s.io/v1'),
    kind: fc.constant('EventList'),
    items: fc.array(
      fc.record({
        auditID: fc.string(),
        stage: fc.constantFrom('ResponseComplete', 'RequestReceived'),
        verb: fc.constantFrom('create', 'update', 'patch', 'delete', 'get'),
        requestURI: fc.string(),
        user: fc.record({ username: fc.string() }),
        objectRef: fc.record({ resource: fc.string(), name: kubeName, apiVersion: fc.constant('v1') }),
        responseStatus: fc.record({ code: fc.integer({ min: 100, max: 599 }) }),
        responseObject: kubeObject,
      }),
      { maxLength: 4 },
    ),
  }),
  fc.record({
    revision: fc.string(),
    scope: fc.jsonValue(),
    objects: fc.array(kubeObject, { maxLength: 3 }),
  }),
  fc.record({ id: fc.string(), message: fc.string({ maxLength: 1100 }), window: fc.jsonValue() }),
  fc.jsonValue({ maxDepth: 6 }),
  fc.string({ maxLength: 2000 }),
  fc.integer({ min: 0, max: 3 * 1024 * 1024 }).map((size) => `"${'x'.repeat(size)}"`),
);

const knownSegments = fc.constantFrom(
  'targets',
  'prod',
  'staging',
  'events',
  'audit',
  'snapshots',
  'parts',
  'complete',
  'saves',
  'refresh',
  'admission',
  'v1',
  'healthz',
);
const encodedSegments = fc.string({ maxLength: 40 }).map((text) => encodeURIComponent(text));
const oddSegments = fc.constantFrom(
  '..',
  '.',
  '',
  '%2F',
  '%2e%2e',
  '%00',
  '%C3%A9',
  '~',
  'CON',
  'a'.repeat(300),
  '%',
  '%zz',
  '%E0%A4%A',
  'a%2',
);
const pathSegment = fc.oneof(knownSegments, knownSegments, encodedSegments, oddSegments);

const path = fc.oneof(
  fc.constantFrom(
    '/api/v1/targets/prod/events',
    '/api/v1/targets/prod/audit',
    '/api/v1/targets/prod/snapshots',
    '/api/v1/targets/prod/snapshots/s-1/parts',
    '/api/v1/targets/prod/snapshots/s-1/complete',
    '/api/v1/targets/prod/saves',
    '/api/v1/targets/prod/saves/s-1',
    '/api/v1/targets/prod/refresh',
    '/api/v1/targets/prod',
    '/api/v1/admission',
  ),
  fc.array(pathSegment, { minLength: 1, maxLength: 6 }).map((segments) => `/api/v1/${segments.join('/')}`),
  fc.tuple(pathSegment, pathSegment).map(([a, b]) => `/api/v1/targets/${a}/${b}`),
);

const headers = fc.record(
  {
    authorization: fc.oneof(
      fc.constant(`Bearer ${TOKEN}`),
      fc.constant(`Bearer ${TOKEN}`),
      fc.constant(`bearer ${TOKEN}`),
      fc.constant(`Bearer ${TOKEN} extra`),
      headerText.map((text) => `Bearer ${text}`),
      headerText,
    ),
    'content-type': fc.oneof(
      fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'),
      fc.constantFrom('text/plain', 'application/yaml', '', 'application/json;;;', 'APPLICATION/JSON'),
      headerText,
    ),
  },
  { requiredKeys: [] },
);

const method = fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');

const ingestPath = fc.constantFrom(
  '/api/v1/targets/prod/events',
  '/api/v1/targets/prod/audit',
  '/api/v1/targets/prod/snapshots',
  '/api/v1/targets/prod/snapshots/s-1/parts',
  '/api/v1/admission',
);

/** A request that passes the envelope (route, token, media type), so its body reaches the normalizers. */
const wellAddressed = fc.record({
  method: fc.constant('POST'),
  path: ingestPath,
  headers: fc.constant({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }),
  body,
});

const anyRequest = fc.record({ method, path, headers, body });

async function send(request: {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}) {
  const res = await fetch(`${app.host.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'GET'
      ? {}
      : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
  });
  const text = await res.text();
  return { status: res.status, text };
}

describe('generated requests against the real HTTP layer', () => {
  it(`answers ${RUNS} generated requests with 2xx or a contract 4xx, and stays up`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ arbitrary: wellAddressed, weight: 2 }, anyRequest), async (request) => {
        const answer = await send(request);
        const contract = answer.status < 300 || CONTRACT_STATUSES.has(answer.status);
        expect({ status: answer.status, contract, body: answer.text.slice(0, 300) }).toEqual({
          status: answer.status,
          contract: true,
          body: answer.text.slice(0, 300),
        });
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 400 && answer.text.startsWith('{')) {
          const error = (JSON.parse(answer.text) as { error?: string }).error;
          expect({ error, status: error === undefined ? undefined : ERROR_STATUS[error] }).toEqual({
            error,
            status: answer.status,
          });
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect((await app.http('GET', '/api/healthz')).status).toBe(200);
  });

  it('answers odd Host headers with 400 or 421 and a body naming the error, never 5xx', async () => {
    const hostHeader = fc.oneof(
      fc.constantFrom('evil.example.com', 'localhost:notaport', '[::1', '127.0.0.1:99999', 'a b', '', '..'),
      headerText,
    );
    await fc.assert(
      fc.asyncProperty(hostHeader, async (value) => {
        const status = await new Promise<number>((resolve, reject) => {
          const url = new URL(`${app.host.url}/api/v1/targets/prod`);
          const req = request(
            {
              host: url.hostname,
              port: url.port,
              path: url.pathname,
              headers: { host: value },
              setHost: false,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect([200, 400, 401, 421]).toContain(status);
      }),
      { numRuns: 40, seed: SEED, endOnFailure: true },
    );
  });

  it('then publishes an ordinary change', async () => {
    const canary = {
      events: [
        {
          type: 'ADDED',
          resource: 'configmaps',
          object: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'fuzz-canary', namespace: 'shop' },
            data: { a: 'b' },
          },
        },
      ],
    };
    const answer = await app.http('POST', '/api/v1/targets/prod/events', canary, {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(answer.status).toBe(202);
    await app.advance(5000);
    expect(await git(remote, 'ls-tree', '-r', '--name-only', 'main')).toContain(
      'clusters/prod/shop/configmaps/fuzz-canary.yaml\n',
    );
  });
});
