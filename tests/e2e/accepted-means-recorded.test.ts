// Accepted means recorded, as a property, end to end (HTTP in, the embedded host, Git out): batches
// mixing ordinary and boundary values (the longest names, usernames, resourceVersions, snapshot
// revisions and author fields) are posted as a kube-apiserver sends them; every event answered as
// accepted is then in Git or listed as a refused write with a reason, never neither and never both;
// every snapshot and save answered 2xx lands (a 4xx names the field at fault).
//
// Shapes modeled from the apiserver: audit events as audit.k8s.io/v1 `Event`s at RequestResponse
// level (tests/fixtures/audit/configmap-patch.yaml, from a real capture); ServiceAccount usernames
// are `system:serviceaccount:<namespace>:<name>` (k8s.io/apiserver/pkg/authentication/serviceaccount,
// MakeUsername), a namespace a DNS label (63), a ServiceAccount's and a ConfigMap's name a DNS
// subdomain (253); a resourceVersion is opaque to clients, an etcd revision (int64) in practice.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const RUNS = 14;
const SEED = 20261203;
const FOLDER = 'clusters/prod';

let app: AppHost;
let remoteDir: string;
let remote: string;

beforeAll(async () => {
  remoteDir = mkdtempSync(join(tmpdir(), 'ks-accepted-'));
  remote = await createBareRepository(join(remoteDir, 'state.git'));
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { window: { idleTimeout: '1s', maxDuration: '5s' } },
      limits: { pushCooldown: '0s' },
    }),
    { LOG_LEVEL: 'info' },
  );
});

afterAll(async () => {
  await app?.stop();
  if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
});

const label = (prefix: string, length: number) => (prefix + 'x'.repeat(length)).slice(0, length);

/** Usernames: ordinary, where the constructed e-mail passed 256, the longest ServiceAccount's, and past every bound. */
const username = fc.oneof(
  fc.constant('alice@example.com'),
  fc.integer({ min: 230, max: 240 }).map((n) => label('u', n)),
  fc.constant(`system:serviceaccount:${label('n', 63)}:${label('s', 253)}`),
  fc.integer({ min: 500, max: 520 }).map((n) => label('long-user-', n)),
  fc.constant(label('very-long-', 2000)),
);

/** The OIDC display name claim kubescribe takes as the author's name, when present. */
const displayName = fc.option(
  fc.oneof(
    fc.constant('Alice Example'),
    fc.integer({ min: 505, max: 520 }).map((n) => label('Name ', n)),
  ),
  { nil: undefined },
);

const resourceVersion = fc.oneof(
  fc.constant('13772844'),
  fc.constant('9223372036854775807'),
  fc.integer({ min: 60, max: 70 }).map((n) => '1'.repeat(n)),
  fc.constant('x'.repeat(100)),
);

const namespace = fc.constantFrom('shop', label('ns-', 63));

/** The length of an object's name: short, or near the longest a DNS subdomain may be. */
const nameLength = fc.oneof(fc.integer({ min: 12, max: 20 }), fc.integer({ min: 240, max: 253 }));

const eventArbitrary = fc.record({
  verb: fc.constantFrom('create', 'update', 'patch'),
  username,
  displayName,
  resourceVersion,
  namespace,
  nameLength,
});
type EventSpec = (typeof eventArbitrary extends fc.Arbitrary<infer T> ? T : never) & {
  name: string;
  value: string;
};

const runArbitrary = fc.record({
  events: fc.array(eventArbitrary, { minLength: 1, maxLength: 5 }),
  revision: fc.oneof(
    fc.constant('1331'),
    fc.integer({ min: 60, max: 70 }).map((n) => '7'.repeat(n)),
    fc.constant('r'.repeat(100)),
  ),
  saveAuthor: username,
});

let run = 0;

/** One event as the apiserver's webhook backend posts it (RequestResponse level, response complete). */
function auditEvent(spec: EventSpec, index: number) {
  const user = {
    username: spec.username,
    groups: ['system:authenticated'],
    ...(spec.displayName ? { extra: { 'kubescribe.dev/claims/display-name': [spec.displayName] } } : {}),
  };
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `00000000-0000-4000-8000-${String(run * 100 + index).padStart(12, '0')}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/${spec.namespace}/configmaps${spec.verb === 'create' ? '' : `/${spec.name}`}`,
    verb: spec.verb,
    user,
    sourceIPs: ['10.0.0.4'],
    userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc1234',
    objectRef: {
      resource: 'configmaps',
      namespace: spec.namespace,
      ...(spec.verb === 'create' ? {} : { name: spec.name }),
      apiVersion: 'v1',
    },
    responseStatus: { metadata: {}, code: spec.verb === 'create' ? 201 : 200 },
    responseObject: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        name: spec.name,
        namespace: spec.namespace,
        uid: `0b2c7a51-3a5e-4b53-8f1e-${String(run * 100 + index).padStart(12, '0')}`,
        resourceVersion: spec.resourceVersion,
        creationTimestamp: '2026-11-27T16:30:31Z',
      },
      data: { value: spec.value },
    },
    requestReceivedTimestamp: '2026-11-28T11:19:13.937551Z',
    stageTimestamp: '2026-11-28T11:19:13.941570Z',
  };
}

/** The file of ConfigMap `name` in `namespace` on the published branch, if one holds exactly `value`. */
async function publishedValue(namespace: string, name: string): Promise<string | undefined> {
  const listed = await git(
    remote,
    'ls-tree',
    '-r',
    '--name-only',
    'main',
    '--',
    `${FOLDER}/${namespace}/configmaps/`,
  );
  for (const path of listed.split('\n').filter(Boolean)) {
    const file = await git(remote, 'show', `main:${path}`);
    if (file.includes(`\n  name: ${name}\n`)) return /\n {2}value: (\S+)\n/.exec(file)?.[1];
  }
  return undefined;
}

const refusedCount = async () =>
  (await app.http('GET', '/api/v1/targets/prod')).body.refusedWrites.count as number;

it('answers every item as recorded or refused with a reason, and keeps its word', async () => {
  await fc.assert(
    fc.asyncProperty(runArbitrary, async ({ events, revision, saveAuthor }) => {
      run++;
      const specs: EventSpec[] = events.map((event, index) => ({
        ...event,
        name: label(`r${run}-e${index}-`, event.nameLength),
        value: `v${run}-${index}`,
      }));
      const refusedBefore = await refusedCount();

      const audit = await app.http('POST', '/api/v1/targets/prod/audit', {
        kind: 'EventList',
        apiVersion: 'audit.k8s.io/v1',
        items: specs.map(auditEvent),
      });
      expect(audit.status).toBe(200);
      const refusals = (audit.body.refusedReasons ?? []) as {
        object: string;
        reason: string;
        message: string;
      }[];
      expect(audit.body.accepted + refusals.length).toBe(specs.length);

      const snapshotNamespace = `snap-${run}`;
      const snapshot = await app.http('POST', '/api/v1/targets/prod/snapshots', {
        scope: { group: '', resource: 'configmaps', namespace: snapshotNamespace },
        revision,
        objects: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'snap', namespace: snapshotNamespace },
            data: { value: `s${run}` },
          },
        ],
      });
      expect([202, 400]).toContain(snapshot.status);
      if (snapshot.status === 400) expect(JSON.stringify(snapshot.body.issues)).toContain('revision');

      const saveId = `save-${run}`;
      const save = await app.http('POST', '/api/v1/targets/prod/saves', {
        id: saveId,
        author: { username: saveAuthor },
      });
      expect([202, 400]).toContain(save.status);
      if (save.status === 400) expect(JSON.stringify(save.body.issues)).toContain('author');

      await app.advance(4000);

      for (const spec of specs) {
        const object = `v1 configmaps ${spec.namespace}/${spec.name}`;
        const refused = refusals.filter((refusal) => refusal.object === object);
        const inGit = (await publishedValue(spec.namespace, spec.name)) === spec.value;
        // Recorded or refused, never neither and never both.
        expect({ object, inGit, refused: refused.length }).toEqual({
          object,
          inGit: refused.length === 0,
          refused: inGit ? 0 : 1,
        });
        for (const refusal of refused) {
          expect(refusal.reason).toMatch(/^[a-z][a-z0-9-]+$/);
          expect(refusal.message.length).toBeGreaterThan(0);
        }
      }
      // Each refusal is also among the target's refused writes, with its reason.
      expect(await refusedCount()).toBe(refusedBefore + refusals.length);
      if (snapshot.status === 202) expect(await publishedValue(snapshotNamespace, 'snap')).toBe(`s${run}`);
      if (save.status === 202) {
        const status = await app.http('GET', `/api/v1/targets/prod/saves/${saveId}`);
        expect(status.status).toBe(200);
        expect(status.body.phase).toBe('Resolved');
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  // The run reached both sides of every bound at least once (the seed is fixed; this guards a change to it).
  expect(await refusedCount()).toBeGreaterThan(0);
});

it('records a change by the longest ServiceAccount username, authored by it', async () => {
  run++;
  const [namespace, name] = [label('n', 63), label('s', 253)];
  const serviceAccount = `system:serviceaccount:${namespace}:${name}`;
  const spec: EventSpec = {
    verb: 'update',
    username: serviceAccount,
    displayName: undefined,
    resourceVersion: '9223372036854775807',
    namespace: 'shop',
    nameLength: 253,
    name: label(`r${run}-sa-`, 253),
    value: `v${run}-sa`,
  };
  const answer = await app.http('POST', '/api/v1/targets/prod/audit', {
    kind: 'EventList',
    apiVersion: 'audit.k8s.io/v1',
    items: [auditEvent(spec, 0)],
  });
  expect(answer).toMatchObject({ status: 200, body: { accepted: 1 } });
  await app.advance(4000);
  expect(await publishedValue('shop', spec.name)).toBe(spec.value);
  // The default author form names a ServiceAccount by its namespace and name (docs/configuration.md,
  // "Commit authors"); the full username is kept whole for it.
  expect(await git(remote, 'log', '-1', '--format=%an', 'main')).toBe(
    `ServiceAccount (${namespace}/${name})\n`,
  );
});

it('reports an event it cannot record in the answer, the status, the metrics and the log; records the rest', async () => {
  run++;
  const spec = (suffix: string, resourceVersion: string): EventSpec => ({
    verb: 'update',
    username: 'alice@example.com',
    displayName: undefined,
    resourceVersion,
    namespace: 'shop',
    nameLength: 20,
    name: label(`r${run}-${suffix}-`, 20),
    value: `v${run}-${suffix}`,
  });
  const kept = spec('kept', '13772845');
  const refused = spec('refused', '1'.repeat(65));
  const answer = await app.http('POST', '/api/v1/targets/prod/audit', {
    kind: 'EventList',
    apiVersion: 'audit.k8s.io/v1',
    items: [auditEvent(refused, 0), auditEvent(kept, 1)],
  });
  const reason = {
    object: `v1 configmaps shop/${refused.name}`,
    reason: 'value-out-of-bounds',
    message: 'resourceVersion: Too big: expected string to have <=64 characters',
  };
  expect(answer).toMatchObject({ status: 200, body: { accepted: 1, refused: 1, refusedReasons: [reason] } });
  await app.advance(4000);

  expect(await publishedValue('shop', kept.name)).toBe(kept.value);
  expect(await publishedValue('shop', refused.name)).toBeUndefined();
  const status = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(status.refusedWrites.recent.at(-1)).toMatchObject({
    object: reason.object,
    target: 'prod',
    cause: `value-out-of-bounds: ${reason.message}`,
  });
  expect(status.conditions).toContainEqual(
    expect.objectContaining({
      type: 'WritesRefused',
      status: 'True',
      message: expect.stringContaining(reason.object),
    }),
  );
  const metrics = parsePrometheusText(await (await fetch(`${app.host.url}/metrics`)).text());
  expect(
    sampleValue(metrics, 'kubescribe_changes_not_recorded_total', {
      target: 'prod',
      reason: 'value-out-of-bounds',
    }),
  ).toBe(status.refusedWrites.count);
  expect(app.logs.filter((record) => record.event === 'ChangesNotRecorded').at(-1)).toMatchObject({
    level: 'warn',
    target: 'prod',
    reason: 'value-out-of-bounds',
    changes: 1,
  });
});
