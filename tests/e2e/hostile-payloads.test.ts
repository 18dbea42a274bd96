// Payloads built to hurt, through the real HTTP routes on the embedded host: objects nested to
// exhaust the stack or multiply their size, names too long for a file, credential-bearing kinds.
// Each is answered 2xx or 400, never 5xx, nothing of it reaches Git, and the branch then
// publishes the next ordinary change.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

const run = promisify(execFile);
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.e2e-credential-never-recorded-0b7d';
const LONG_NAME = `${'long-name.'.repeat(24)}${'x'.repeat(12)}z`;

let app: AppHost;
let remoteDir: string;
let remote: string;

beforeAll(async () => {
  remoteDir = mkdtempSync(join(tmpdir(), 'ks-hostile-payloads-'));
  remote = await createBareRepository(join(remoteDir, 'state.git'));
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { window: { idleTimeout: '2s', maxDuration: '1m' } },
      limits: { pushCooldown: '0s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
});

function configMap(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop' },
    data: { a: 'b' },
    ...extra,
  };
}

function events(type: string, resource: string, object: object) {
  return { events: [{ type, resource, object, author: { username: 'alice' } }] };
}

function auditList(
  objectRef: Record<string, unknown>,
  responseObject: object,
  verb = 'create',
): Record<string, unknown> {
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    items: [
      {
        auditID: `hostile-${String(objectRef.resource)}`,
        stage: 'ResponseComplete',
        verb,
        requestURI: '/apis/hostile',
        user: { username: 'mallory' },
        objectRef: { apiVersion: 'v1', namespace: 'shop', ...objectRef },
        responseStatus: { code: 201 },
        requestObject: responseObject,
        responseObject,
      },
    ],
  };
}

/** `{"a": {"a": … 1}}` `levels` deep, as text: building it as an object and stringifying would overflow. */
function deepJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** An events body whose ConfigMap's `data` holds `levels` nested maps. */
function deepEventsBody(levels: number): string {
  return `{"events":[{"type":"ADDED","resource":"configmaps","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"shop"},"data":${deepJson(levels)}}}]}`;
}

async function postRaw(path: string, text: string) {
  return app.http('POST', path, text, { 'content-type': 'application/json' });
}

async function tree(): Promise<string> {
  return git(remote, 'ls-tree', '-r', '--name-only', 'main').catch(() => '');
}

/** Posts an ordinary change and checks that the branch publishes it. */
async function expectCanaryPublished(name: string): Promise<void> {
  const answer = await app.http(
    'POST',
    '/api/v1/targets/prod/events',
    events('ADDED', 'configmaps', configMap(name)),
  );
  expect(answer.status).toBe(202);
  await app.advance(5000);
  expect(await tree()).toContain(`clusters/prod/shop/configmaps/${name}.yaml\n`);
}

describe('objects nested to exhaust the stack or multiply their size', () => {
  it('refuses a 100,000-deep events body with 400 naming the field, not 5xx', async () => {
    const answer = await postRaw('/api/v1/targets/prod/events', deepEventsBody(100_000));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: 'invalid-input',
      issues: [{ path: 'events[0].object.data', message: expect.stringContaining('100 levels') }],
    });
  });

  it('refuses a 181 KB body of 3,000-deep objects with 400, storing nothing', async () => {
    const objects = Array.from(
      { length: 10 },
      (_, index) =>
        `{"resource":"configmaps","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-${index}","namespace":"shop"},"data":${deepJson(3000)}}}`,
    );
    const body = `{"revision":"1","objects":[${objects.join(',')}]}`;
    expect(body.length).toBeGreaterThan(180_000);
    const answer = await postRaw('/api/v1/targets/prod/snapshots', body);
    expect(answer.status).toBe(400);
    expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toEqual(
      objects.map((_, index) => `objects[${index}].object.data`),
    );
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(status.body.publication).toMatchObject({ pendingWrites: 0, pendingBytes: 0 });
  });

  it('refuses with 413 a body under the limit whose objects, each within bounds, render to more than a request may hold', async () => {
    // 99 levels under `data`, each indented once more: about 16 bytes of YAML per byte of JSON.
    const object = (index: number) =>
      `{"type":"ADDED","resource":"configmaps","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"wide-${index}","namespace":"shop"},"data":${deepJson(97)}}}`;
    const items = Array.from({ length: 9000 }, (_, index) => object(index));
    const body = `{"events":[${items.join(',')}]}`;
    expect(body.length).toBeLessThan(10 * 1024 * 1024);
    const answer = await postRaw('/api/v1/targets/prod/events', body);
    expect(answer).toMatchObject({
      status: 413,
      body: { error: 'payload-too-large', message: expect.stringContaining('bytes of YAML') },
    });
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(status.body.publication).toMatchObject({ pendingWrites: 0 });
    expect(status.body.window).toMatchObject({ open: false });
  });

  it('answers a 100,000-deep audit EventList 200, ignoring the event with its path, and deep admission and snapshot bodies without 5xx', async () => {
    const audit = `{"apiVersion":"audit.k8s.io/v1","kind":"EventList","items":[{"auditID":"deep","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/shop/configmaps","user":{"username":"mallory"},"objectRef":{"resource":"configmaps","namespace":"shop","apiVersion":"v1"},"responseStatus":{"code":201},"requestObject":${deepJson(100_000)},"responseObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"shop"},"data":${deepJson(100_000)}}}]}`;
    const answer = await postRaw('/api/v1/targets/prod/audit', audit);
    expect(answer).toMatchObject({
      status: 200,
      body: {
        accepted: 0,
        ignoredReasons: [
          {
            reason: 'object-too-deep',
            index: 0,
            message: expect.stringMatching(/^items\[0\]\.responseObject\.data /),
          },
        ],
      },
    });
    const admission = await postRaw(
      '/api/v1/admission',
      `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},"operation":"CREATE","userInfo":{"username":"mallory"},"object":${deepJson(100_000)}}}`,
    );
    expect(admission).toMatchObject({ status: 200, body: { response: { uid: 'u-1', allowed: true } } });
    for (const levels of [100_000, 1_000_000]) {
      const part = await postRaw(
        '/api/v1/targets/prod/snapshots/deep-1/parts',
        `{"objects":${deepJson(levels)}}`,
      );
      expect(part.status).toBe(400);
    }
  });

  it('then publishes the next ordinary change', async () => {
    await expectCanaryPublished('after-deep');
    expect(await tree()).not.toMatch(/\/deep(-\d)?\.yaml/);
  });
});

describe('a name too long for a file name', () => {
  it('records the object at a shortened path the repository can be cloned with, and deletes it there', async () => {
    expect(LONG_NAME.length).toBe(253);
    const posted = await app.http(
      'POST',
      '/api/v1/targets/prod/events',
      events('ADDED', 'configmaps', configMap(LONG_NAME)),
    );
    expect(posted.status).toBe(202);
    await app.advance(5000);
    const files = (await tree()).split('\n').filter((file) => file.includes('long-name'));
    expect(files).toHaveLength(1);
    const file = files[0] as string;
    for (const component of file.split('/')) expect(Buffer.byteLength(component)).toBeLessThanOrEqual(255);
    expect(await git(remote, 'show', `main:${file}`)).toContain(`  name: ${LONG_NAME}\n`);

    const checkout = join(remoteDir, 'checkout');
    await run('git', ['clone', '--quiet', '--branch', 'main', remote, checkout]);
    const cloned = readdirSync(join(checkout, 'clusters', 'prod', 'shop', 'configmaps'));
    expect(cloned).toContain(file.split('/').at(-1));

    const deleted = await app.http(
      'POST',
      '/api/v1/targets/prod/events',
      events('DELETED', 'configmaps', configMap(LONG_NAME)),
    );
    expect(deleted.status).toBe(202);
    await app.advance(5000);
    expect(await tree()).not.toContain('long-name');
  });
});

describe('credential-bearing kinds', () => {
  const reviews = [
    { group: 'authentication.k8s.io', resource: 'tokenreviews', kind: 'TokenReview' },
    { group: 'authorization.k8s.io', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview' },
    { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview' },
    {
      group: 'certificates.k8s.io',
      resource: 'certificatesigningrequests',
      kind: 'CertificateSigningRequest',
    },
  ];
  const objectOf = (review: (typeof reviews)[number]) => ({
    apiVersion: `${review.group}/v1`,
    kind: review.kind,
    metadata: { name: 'named-review', namespace: 'shop' },
    spec: { token: TOKEN, request: TOKEN },
    status: { token: TOKEN, certificate: TOKEN },
  });

  it('ignores named reviews, token requests and CSRs on the audit route', async () => {
    for (const review of reviews) {
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/audit',
        auditList(
          { resource: review.resource, apiGroup: review.group, name: 'named-review' },
          objectOf(review),
        ),
      );
      expect(answer).toMatchObject({
        status: 200,
        body: { accepted: 0, ignoredReasons: [{ reason: 'sensitive-resource' }] },
      });
    }
    const tokenRequest = await app.http(
      'POST',
      '/api/v1/targets/prod/audit',
      auditList(
        { resource: 'serviceaccounts', subresource: 'token', name: 'builder' },
        {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          metadata: { name: 'builder' },
          status: { token: TOKEN },
        },
      ),
    );
    expect(tokenRequest.body).toMatchObject({
      accepted: 0,
      ignoredReasons: [{ reason: 'sensitive-resource' }],
    });
  });

  it('ignores them on the events route, under their own resource or another', async () => {
    for (const review of reviews) {
      for (const resource of [review.resource, 'configmaps']) {
        const answer = await app.http(
          'POST',
          '/api/v1/targets/prod/events',
          events('ADDED', resource, objectOf(review)),
        );
        expect(answer).toMatchObject({
          status: 202,
          body: { accepted: 0, ignoredReasons: [{ reason: 'sensitive-resource' }] },
        });
      }
    }
  });

  it('answers an AdmissionReview of a TokenReview allowed, registering nothing', async () => {
    const answer = await app.http('POST', '/api/v1/admission', {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'review-uid',
        kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' },
        resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' },
        name: 'named-review',
        operation: 'CREATE',
        userInfo: { username: 'mallory' },
        object: objectOf(reviews[0] as (typeof reviews)[number]),
      },
    });
    expect(answer).toMatchObject({ status: 200, body: { response: { uid: 'review-uid', allowed: true } } });
  });

  it('then publishes the next ordinary change, and the token is nowhere: not in Git, storage or the logs', async () => {
    await expectCanaryPublished('after-credentials');
    const objects = await git(remote, 'cat-file', '--batch-all-objects', '--batch');
    expect(objects).toContain('after-credentials');
    expect(objects).not.toContain(TOKEN);
    expect(objects).not.toContain('named-review');
    const stored = readdirSync(app.dataDir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
    for (const file of stored)
      expect({ file, leaked: readFileSync(file).includes(TOKEN) }).toEqual({ file, leaked: false });
    expect(JSON.stringify(app.logs)).not.toContain(TOKEN);
  });
});
