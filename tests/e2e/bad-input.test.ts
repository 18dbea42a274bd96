// Bad input through the real HTTP routes on the embedded host: each is refused with the contract's
// error body naming the problem, nothing of it is accepted, and the host stays up.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, git, startAppHost } from '../support/app/app-host';

const PROD_TOKEN = 'prod-source-token-3f9a1c';
const LAB_TOKEN = 'lab-source-token-77be02';
const asProd = { authorization: `Bearer ${PROD_TOKEN}` };
const asLab = { authorization: `Bearer ${LAB_TOKEN}` };
const BODY_LIMIT = 10 * 1024 * 1024;

// Secret data that must never reach storage, Git or a log, in plaintext or as Kubernetes encodes it.
const SECRET_PLAIN = 'hunter2-never-store-me-5d1f';
const SECRET_BASE64 = Buffer.from(SECRET_PLAIN).toString('base64');

type Answer = Awaited<ReturnType<AppHost['http']>>;

function configMap(name: string, namespace = 'shop') {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, resourceVersion: '7' },
    data: { mode: 'fast' },
  };
}

function events(...objects: object[]) {
  return {
    events: objects.map((object) => ({
      type: 'ADDED',
      resource: 'configmaps',
      object,
      author: { username: 'alice' },
    })),
  };
}

function secret(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'shop' },
    type: 'Opaque',
    data: { password: SECRET_BASE64 },
    stringData: { token: SECRET_PLAIN },
  };
}

function auditList(responseObject: object, objectRef: object) {
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    items: [
      {
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Event',
        level: 'RequestResponse',
        auditID: '3f1c2a10-0d7e-4a55-9a51-0c6f7f0e1a99',
        stage: 'ResponseComplete',
        requestURI: '/api/v1/namespaces/shop/configmaps',
        verb: 'create',
        user: { username: 'alice@example.com', groups: ['developers'] },
        objectRef,
        responseStatus: { metadata: {}, code: 201 },
        responseObject,
        requestReceivedTimestamp: '2026-11-28T11:19:13.937551Z',
        stageTimestamp: '2026-11-28T11:19:13.941570Z',
      },
    ],
  };
}

function commitRequestReview(target: string) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800099',
      kind: { group: 'kubescribe.dev', version: 'v1alpha1', kind: 'CommitRequest' },
      resource: { group: 'kubescribe.dev', version: 'v1alpha1', resource: 'commitrequests' },
      name: 'sneaky',
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: { username: 'mallory', groups: ['system:authenticated'] },
      object: {
        apiVersion: 'kubescribe.dev/v1alpha1',
        kind: 'CommitRequest',
        metadata: { name: 'sneaky', namespace: 'shop', uid: 'c0ffee00-1111-4222-8333-444455559999' },
        spec: { target, message: 'escape the target' },
      },
      dryRun: false,
    },
  };
}

/** The contract's error body: `{error, message, issues?}` with the code's status and a message naming the problem. */
function expectRefused(answer: Answer, status: number, code: string, names: RegExp): void {
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error: code });
  expect(answer.body.message).toMatch(names);
  expect(
    Object.keys(answer.body).filter(
      (key) => !['error', 'message', 'issues', 'phase', 'outcome'].includes(key),
    ),
  ).toEqual([]);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
}

/** A 400 whose issues name `path` (the field at fault). */
function expectInvalid(answer: Answer, path: string | RegExp): void {
  expectRefused(answer, 400, 'invalid-input', /not valid|does not match|needs/);
  const paths = (answer.body.issues as { path: string; message: string }[]).map((issue) => issue.path);
  expect(paths).toContainEqual(typeof path === 'string' ? path : expect.stringMatching(path));
  for (const issue of answer.body.issues) expect(issue.message).toEqual(expect.any(String));
}

/**
 * Sends a raw body over HTTP/1.1 (fetch cannot omit the content type or declare a length it does
 * not send): `text` as is, or `count` chunks of `size` spaces, declaring `declare` as the
 * Content-Length, or chunked when it is absent.
 */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: { text: string } | { size: number; count: number; declare?: number },
): Promise<{ status: number; body: { error?: string; message?: string } }> {
  const declare = 'declare' in body ? body.declare : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, ...(declare === undefined ? {} : { 'content-length': String(declare) }) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) });
        });
      },
    );
    // The server may answer and stop reading before the whole body is sent: that is the point.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if ('text' in body) {
      req.end(body.text);
      return;
    }
    const chunk = Buffer.alloc(body.size, 0x20);
    for (let i = 0; i < body.count; i++) req.write(chunk);
    if (declare === undefined) req.end();
  });
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('bad input on the real HTTP routes (auth required, two sources)', () => {
  let app: AppHost;
  let remoteDir: string;
  let remote: string;

  beforeAll(async () => {
    remoteDir = mkdtempSync(join(tmpdir(), 'ks-bad-input-remote-'));
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
            window: { idleTimeout: '5s', maxDuration: '1m' },
          },
          {
            name: 'lab',
            repository: 'state',
            branch: 'lab',
            path: 'clusters/lab',
            window: { idleTimeout: '5s', maxDuration: '1m' },
          },
        ],
        sources: [
          { name: 'cluster-prod', tokenEnv: 'KS_BAD_INPUT_PROD_TOKEN', targets: ['prod'] },
          { name: 'cluster-lab', tokenEnv: 'KS_BAD_INPUT_LAB_TOKEN', targets: ['lab'] },
        ],
        server: { auth: 'required' },
      },
      { KS_BAD_INPUT_PROD_TOKEN: PROD_TOKEN, KS_BAD_INPUT_LAB_TOKEN: LAB_TOKEN },
    );
  });

  afterAll(async () => {
    await app?.stop();
    if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
  });

  /** The prod target holds nothing: no pending write, no open window. */
  async function expectNothingPendingOnProd(): Promise<void> {
    const status = await app.http('GET', '/api/v1/targets/prod', undefined, asProd);
    expect(status.status).toBe(200);
    expect(status.body.publication).toMatchObject({ pendingWrites: 0, pendingBytes: 0 });
    expect(status.body.window).toMatchObject({ open: false, changes: 0 });
  }

  describe('authentication and access', () => {
    it('refuses a request without a token with 401, naming the Authorization header it needs', async () => {
      expectRefused(
        await app.http('POST', '/api/v1/targets/prod/events', events(configMap('a'))),
        401,
        'unauthorized',
        /Bearer/,
      );
      await expectNothingPendingOnProd();
    });

    it('refuses a wrong token and a non-bearer scheme with 401', async () => {
      const wrong = await app.http('POST', '/api/v1/targets/prod/events', events(configMap('a')), {
        authorization: 'Bearer not-a-token',
      });
      expectRefused(wrong, 401, 'unauthorized', /matches no configured source/);
      const basic = await app.http('POST', '/api/v1/targets/prod/events', events(configMap('a')), {
        authorization: `Basic ${Buffer.from(`x:${PROD_TOKEN}`).toString('base64')}`,
      });
      expectRefused(basic, 401, 'unauthorized', /Bearer/);
      expectRefused(
        await app.http('GET', '/api/v1/targets/prod', undefined, { authorization: 'Bearer nope' }),
        401,
        'unauthorized',
        /source/,
      );
      expectRefused(
        await app.http('POST', '/api/v1/admission', commitRequestReview('prod')),
        401,
        'unauthorized',
        /Bearer/,
      );
      await expectNothingPendingOnProd();
    });

    it('refuses a target the source may not write with 403, naming source and target', async () => {
      expectRefused(
        await app.http('POST', '/api/v1/targets/lab/events', events(configMap('a')), asProd),
        403,
        'forbidden',
        /"cluster-prod" may not write target "lab"/,
      );
      expectRefused(
        await app.http('POST', '/api/v1/targets/prod/saves', { id: 'save-1' }, asLab),
        403,
        'forbidden',
        /"prod"/,
      );
      expectRefused(
        await app.http('POST', '/api/v1/targets/prod/refresh', undefined, asLab),
        403,
        'forbidden',
        /"prod"/,
      );
      await expectNothingPendingOnProd();
    });

    it('answers an unknown target with 404 naming it, on every target route', async () => {
      for (const path of ['/events', '/audit', '/saves', '/snapshots', '/refresh']) {
        const answer = await app.http(
          'POST',
          `/api/v1/targets/staging${path}`,
          events(configMap('a')),
          asProd,
        );
        expectRefused(answer, 404, 'target-not-found', /"staging"/);
      }
      expectRefused(
        await app.http('GET', '/api/v1/targets/staging', undefined, asProd),
        404,
        'target-not-found',
        /"staging"/,
      );
    });

    it('answers an unknown save with 404 naming it', async () => {
      expectRefused(
        await app.http('GET', '/api/v1/targets/prod/saves/never-made', undefined, asProd),
        404,
        'save-not-found',
        /"never-made"/,
      );
    });

    it('answers a method the route does not take with 405 naming the allowed ones', async () => {
      expectRefused(
        await app.http('PUT', '/api/v1/targets/prod/events', events(configMap('a')), asProd),
        405,
        'method-not-allowed',
        /PUT.*POST/,
      );
      expectRefused(
        await app.http('GET', '/api/v1/targets/prod/events', undefined, asProd),
        405,
        'method-not-allowed',
        /GET.*POST/,
      );
      expectRefused(
        await app.http('DELETE', '/api/v1/targets/prod', undefined, asProd),
        405,
        'method-not-allowed',
        /DELETE.*GET/,
      );
      expectRefused(
        await app.http('PATCH', '/api/v1/targets/prod/saves/x', {}, asProd),
        405,
        'method-not-allowed',
        /GET or DELETE/,
      );
      await expectNothingPendingOnProd();
    });
  });

  describe('bodies that are not the contract', () => {
    it('refuses malformed JSON with 400 saying it is not valid JSON', async () => {
      for (const path of [
        'events',
        'audit',
        'saves',
        'snapshots',
        'snapshots/resync-1/parts',
        'snapshots/resync-1/complete',
      ]) {
        const answer = await app.http(
          'POST',
          `/api/v1/targets/prod/${path}`,
          '{"events": [{"type": "ADDED",',
          {
            ...asProd,
            'content-type': 'application/json',
          },
        );
        expectRefused(answer, 400, 'invalid-input', /not valid JSON/);
      }
      const admission = await app.http('POST', '/api/v1/admission', '{"kind": "AdmissionReview"', {
        ...asProd,
        'content-type': 'application/json',
      });
      expectRefused(admission, 400, 'invalid-input', /not valid JSON/);
      await expectNothingPendingOnProd();
    });

    it('refuses a body that is not JSON with 415 naming the media type it got', async () => {
      const yaml = await app.http('POST', '/api/v1/targets/prod/events', 'events: []\n', {
        ...asProd,
        'content-type': 'application/yaml',
      });
      expectRefused(yaml, 415, 'unsupported-media-type', /application\/yaml/);
      const none = await rawPost(`${app.host.url}/api/v1/targets/prod/saves`, asProd, {
        text: '{"id":"save-untyped"}',
      });
      expect(none).toMatchObject({
        status: 415,
        body: { error: 'unsupported-media-type', message: expect.stringMatching(/not "nothing"/) },
      });
      const saved = await app.http('GET', '/api/v1/targets/prod/saves/save-untyped', undefined, asProd);
      expectRefused(saved, 404, 'save-not-found', /save-untyped/);
      await expectNothingPendingOnProd();
    });

    it('refuses an events batch of the wrong shape with 400 naming each field, accepting none of the batch', async () => {
      const bookmark = { type: 'BOOKMARK', resource: 'configmaps', object: configMap('b') };
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/events',
        { events: [events(configMap('a')).events[0], bookmark] },
        asProd,
      );
      expectInvalid(answer, 'events[1].type');
      expectInvalid(
        await app.http('POST', '/api/v1/targets/prod/events', { items: [] }, asProd),
        /events|items/,
      );
      await expectNothingPendingOnProd();
    });

    it('refuses an audit EventList of the wrong shape with 400 naming the field', async () => {
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/audit',
        { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: 'none' },
        asProd,
      );
      expectInvalid(answer, /^items/);
      const wrongKind = await app.http(
        'POST',
        '/api/v1/targets/prod/audit',
        { apiVersion: 'audit.k8s.io/v1', kind: 'Event', items: [] },
        asProd,
      );
      expectInvalid(wrongKind, 'kind');
      await expectNothingPendingOnProd();
    });

    it('refuses snapshots, parts and completions of the wrong shape with 400 naming the field', async () => {
      const ambiguous = await app.http(
        'POST',
        '/api/v1/targets/prod/snapshots',
        { scope: { resource: 'configmaps' }, revision: '9', objects: [] },
        asProd,
      );
      expectInvalid(ambiguous, /scope/);
      const noRevision = await app.http('POST', '/api/v1/targets/prod/snapshots', { objects: [] }, asProd);
      expectInvalid(noRevision, 'revision');
      const badPart = await app.http(
        'POST',
        '/api/v1/targets/prod/snapshots/resync-1/parts',
        { objects: 'all of them' },
        asProd,
      );
      expectInvalid(badPart, /objects/);
      const badId = await app.http(
        'POST',
        '/api/v1/targets/prod/snapshots/no%20spaces/parts',
        { objects: [] },
        asProd,
      );
      expectInvalid(badId, 'id');
      const badCompletion = await app.http(
        'POST',
        '/api/v1/targets/prod/snapshots/resync-1/complete',
        { scope: {} },
        asProd,
      );
      expectInvalid(badCompletion, 'revision');
      await expectNothingPendingOnProd();
    });

    it('refuses a save of the wrong shape with 400 naming the field, registering nothing', async () => {
      const long = await app.http(
        'POST',
        '/api/v1/targets/prod/saves',
        { id: 'save-long', message: 'x'.repeat(1025) },
        asProd,
      );
      expectInvalid(long, 'message');
      const emptyWithout = await app.http(
        'POST',
        '/api/v1/targets/prod/saves',
        { id: 'save-empty', whenNothingToCommit: 'CommitEmpty' },
        asProd,
      );
      expectInvalid(emptyWithout, 'message');
      const unknownKey = await app.http(
        'POST',
        '/api/v1/targets/prod/saves',
        { id: 'save-extra', priority: 'high' },
        asProd,
      );
      expectInvalid(unknownKey, /^$|priority/);
      const badWindow = await app.http(
        'POST',
        '/api/v1/targets/prod/saves',
        { id: 'save-window', window: { maxDuration: '10m' } },
        asProd,
      );
      expectInvalid(badWindow, /window.*maxDuration/);
      const badId = await app.http('POST', '/api/v1/targets/prod/saves', { id: '../../save' }, asProd);
      expectInvalid(badId, 'id');
      for (const id of ['save-long', 'save-empty', 'save-extra', 'save-window']) {
        expectRefused(
          await app.http('GET', `/api/v1/targets/prod/saves/${id}`, undefined, asProd),
          404,
          'save-not-found',
          new RegExp(id),
        );
      }
      await expectNothingPendingOnProd();
    });

    it('refuses an AdmissionReview of the wrong shape with 400 naming the field', async () => {
      const answer = await app.http(
        'POST',
        '/api/v1/admission',
        { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} },
        asProd,
      );
      expectInvalid(answer, /request.*uid/);
    });
  });

  describe('bodies over the limit', () => {
    it('refuses a body whose declared length is over 10 MiB with 413 before reading it', async () => {
      const answer = await rawPost(
        `${app.host.url}/api/v1/targets/prod/events`,
        { ...asProd, 'content-type': 'application/json' },
        { size: 1024, count: 1, declare: BODY_LIMIT + 1 },
      );
      expect(answer.status).toBe(413);
      expect(answer.body.message).toMatch(new RegExp(`${BODY_LIMIT}`));
      await expectNothingPendingOnProd();
    });

    it('refuses a chunked body that grows past 10 MiB with 413', async () => {
      const answer = await rawPost(
        `${app.host.url}/api/v1/targets/prod/events`,
        { ...asProd, 'content-type': 'application/json' },
        { size: 1024 * 1024, count: 11 },
      );
      expect(answer.status).toBe(413);
      expect(answer.body.message).toMatch(new RegExp(`${BODY_LIMIT}`));
      await expectNothingPendingOnProd();
    });
  });

  describe('names that try to leave the target', () => {
    it.each([
      ['a parent-folder name', { name: '../../../etc/passwd' }, 'events[0].object.metadata.name'],
      ['a name with a slash', { name: 'shop/evil' }, 'events[0].object.metadata.name'],
      ['an absolute name', { name: '/etc/passwd' }, 'events[0].object.metadata.name'],
      ['a percent-encoded slash', { name: 'a%2Fb' }, 'events[0].object.metadata.name'],
      ['a parent-folder namespace', { namespace: '..' }, 'events[0].object.metadata.namespace'],
      ['a namespace with a slash', { namespace: 'shop/../..' }, 'events[0].object.metadata.namespace'],
      ['an absolute namespace', { namespace: '/tmp' }, 'events[0].object.metadata.namespace'],
    ])('refuses an event with %s with 400 naming the field', async (_case, metadata, path) => {
      const object = configMap('ok');
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/events',
        events({ ...object, metadata: { ...object.metadata, ...metadata } }),
        asProd,
      );
      expectInvalid(answer, path);
      await expectNothingPendingOnProd();
    });

    it('refuses a resource name that is a path with 400', async () => {
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/events',
        { events: [{ type: 'ADDED', resource: '../secrets', object: configMap('a') }] },
        asProd,
      );
      expectInvalid(answer, 'events[0].resource');
    });

    it('refuses an audit event whose object climbs out of its folder, refusing the whole list', async () => {
      const object = configMap('..');
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/audit',
        auditList(object, { resource: 'configmaps', namespace: 'shop', name: '..', apiVersion: 'v1' }),
        asProd,
      );
      expectInvalid(answer, /^items\[0\]/);
      await expectNothingPendingOnProd();
    });

    it('refuses a snapshot object in a namespace that is a path with 400', async () => {
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/snapshots',
        {
          scope: { group: '', resource: 'configmaps' },
          revision: '40',
          objects: [configMap('a', '../../..')],
        },
        asProd,
      );
      expectInvalid(answer, /^objects\[0\]/);
      await expectNothingPendingOnProd();
    });

    it('answers a target name with an encoded slash with 404 naming it as sent, reaching no other target', async () => {
      const names = {
        '..%2Flab': '../lab',
        'prod%2F..%2Flab': 'prod/../lab',
        '%2Fprod': '/prod',
        'prod%2F': 'prod/',
      };
      for (const [sent, decoded] of Object.entries(names)) {
        const answer = await app.http(
          'POST',
          `/api/v1/targets/${sent}/events`,
          events(configMap('a')),
          asLab,
        );
        expectRefused(answer, 404, 'target-not-found', new RegExp(`"${decoded.replaceAll('.', '\\.')}"`));
      }
      // Encoded dots are dot segments to a URL: the path collapses before it reaches any target route.
      const dots = await app.http('POST', '/api/v1/targets/%2E%2E/lab/events', events(configMap('a')), asLab);
      expect(dots.status).toBe(404);
      const lab = await app.http('GET', '/api/v1/targets/lab', undefined, asLab);
      expect(lab.body.publication.pendingWrites).toBe(0);
      await expectNothingPendingOnProd();
    });

    it('allows a CommitRequest naming a target that is a path but registers no save', async () => {
      const answer = await app.http('POST', '/api/v1/admission', commitRequestReview('../prod'), asProd);
      expect(answer).toMatchObject({
        status: 200,
        body: { response: { uid: '705ab4f5-6393-11e8-b7cc-42010a800099', allowed: true } },
      });
      const save = await app.http(
        'GET',
        '/api/v1/targets/prod/saves/c0ffee00-1111-4222-8333-444455559999',
        undefined,
        asProd,
      );
      expectRefused(save, 404, 'save-not-found', /c0ffee00/);
      await expectNothingPendingOnProd();
    });
  });

  describe('CommitRequests the source may not save', () => {
    it('allows a CommitRequest for a target its source may not write, with a warning, registering no save', async () => {
      const review = commitRequestReview('prod');
      const answer = await app.http('POST', '/api/v1/admission', review, asLab);
      expect(answer).toMatchObject({
        status: 200,
        body: { response: { uid: review.request.uid, allowed: true } },
      });
      expect(answer.body.response.warnings).toEqual([
        expect.stringMatching(/"cluster-lab" may not write target "prod"/),
      ]);
      const save = await app.http(
        'GET',
        `/api/v1/targets/prod/saves/${review.request.object.metadata.uid}`,
        undefined,
        asProd,
      );
      expectRefused(save, 404, 'save-not-found', /c0ffee00/);
    });
  });

  describe('Secrets', () => {
    it('ignores a Secret in an events batch with the sensitive-resource reason and accepts nothing of it', async () => {
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/events',
        events(secret('db-password')),
        asProd,
      );
      expect(answer).toMatchObject({
        status: 202,
        body: { accepted: 0, ignored: 1, ignoredReasons: [{ reason: 'sensitive-resource', index: 0 }] },
      });
      expect(JSON.stringify(answer.body)).not.toContain(SECRET_BASE64);
      await expectNothingPendingOnProd();
    });

    it('ignores a Secret in an audit EventList with the sensitive-resource reason and accepts nothing of it', async () => {
      const answer = await app.http(
        'POST',
        '/api/v1/targets/prod/audit',
        auditList(secret('db-password'), {
          resource: 'secrets',
          namespace: 'shop',
          name: 'db-password',
          apiVersion: 'v1',
        }),
        asProd,
      );
      expect(answer).toMatchObject({
        status: 200,
        body: { accepted: 0, ignored: 1, ignoredReasons: [{ reason: 'sensitive-resource', index: 0 }] },
      });
      expect(JSON.stringify(answer.body)).not.toContain(SECRET_BASE64);
      await expectNothingPendingOnProd();
    });

    it('records the rest of a batch but never a Secret, even one posted under another resource', async () => {
      const disguised = {
        type: 'ADDED',
        resource: 'configmaps',
        object: secret('disguised'),
        author: { username: 'bob' },
      };
      const batch = {
        events: [...events(configMap('lab-settings')).events, ...events(secret('api-key')).events, disguised],
      };
      const answer = await app.http('POST', '/api/v1/targets/lab/events', batch, asLab);
      expect(answer).toMatchObject({
        status: 202,
        body: {
          accepted: 1,
          ignored: 2,
          ignoredReasons: [
            { reason: 'sensitive-resource', index: 1 },
            { reason: 'sensitive-resource', index: 2 },
          ],
        },
      });
      await app.advance(90_000);
      expect(await git(remote, 'ls-tree', '-r', '--name-only', 'lab')).toBe(
        'clusters/lab/shop/configmaps/lab-settings.yaml\n',
      );
    });

    it('keeps Secret data out of the payload folder, the host data, the Git repository and the logs', async () => {
      const stored = filesUnder(app.dataDir);
      // The scan sees what was stored: the ConfigMap recorded beside the Secrets is in the payload folder.
      const payloads = stored.filter((file) => file.includes(join('payloads', 'sha256')));
      expect(payloads.some((file) => readFileSync(file).includes('name: lab-settings'))).toBe(true);
      for (const file of [...stored, ...filesUnder(remote)]) {
        const bytes = readFileSync(file);
        expect({ file, plain: bytes.includes(SECRET_PLAIN), base64: bytes.includes(SECRET_BASE64) }).toEqual({
          file,
          plain: false,
          base64: false,
        });
      }
      const objects = await git(remote, 'cat-file', '--batch-all-objects', '--batch');
      expect(objects).toContain('lab-settings');
      expect(objects).not.toContain(SECRET_BASE64);
      expect(objects).not.toContain(SECRET_PLAIN);
      const logs = JSON.stringify(app.logs);
      expect(logs).not.toContain(SECRET_BASE64);
      expect(logs).not.toContain(SECRET_PLAIN);
    });
  });

  describe('after all of it', () => {
    it('committed nothing to prod, holds nothing pending, and still answers healthz', async () => {
      await app.advance(120_000);
      expect(await git(remote, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/lab\n');
      await expectNothingPendingOnProd();
      const prod = await app.http('GET', '/api/v1/targets/prod', undefined, asProd);
      expect(prod.body.publication.lastPush).toBeNull();
      expect(await app.http('GET', '/api/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    });
  });
});
