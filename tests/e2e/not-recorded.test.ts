// Nothing ignored in silence, end to end (HTTP in, the embedded host, Git out): a change by an
// excluded field manager makes no commit and is counted `excluded`, on the audit and the events
// routes; events ignored for other reasons are counted by their reason, with examples, on the
// target's GET (the dashboard's data); an audit batch at policy level Metadata raises
// AuditObjectsMissing naming the level to set, and objects of that resource clear it; each reason
// is logged once per source and minute.
//
// Shapes modeled from the apiserver: audit.k8s.io/v1 Events (tests/fixtures/audit/configmap-patch.yaml,
// a real capture). At level Metadata an Event carries neither requestObject nor responseObject
// (k8s.io/apiserver/pkg/audit/request.go: LogRequestObject and LogResponseObject return early below
// Request and RequestResponse). managedFields entries as the apiserver writes them: `manager`,
// `operation`, `apiVersion`, `time` (seconds), `fieldsType: FieldsV1`; Flux's kustomize-controller
// applies server-side as field manager `kustomize-controller`, under its ServiceAccount
// `system:serviceaccount:flux-system:kustomize-controller`.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

let app: AppHost;
let remoteDir: string;
let remote: string;

beforeAll(async () => {
  remoteDir = mkdtempSync(join(tmpdir(), 'ks-not-recorded-'));
  remote = await createBareRepository(join(remoteDir, 'state.git'));
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: {
        window: { idleTimeout: '1s', maxDuration: '5s' },
        exclude: { fieldManagers: ['kustomize-controller', 'helm-controller'] },
      },
      limits: { pushCooldown: '0s' },
    }),
    { LOG_LEVEL: 'info' },
  );
});

afterAll(async () => {
  await app?.stop();
  if (remoteDir) rmSync(remoteDir, { recursive: true, force: true });
});

let serial = 0;

/** The latest write by `manager`, after an older one by kubectl (entries are not in time order). */
function managedFields(manager: string) {
  return [
    {
      manager,
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2026-11-28T11:19:13Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:value': {} } },
    },
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-27T16:30:31Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': {} },
    },
  ];
}

function configMap(name: string, value: string, manager: string) {
  return {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: {
      name,
      namespace: 'shop',
      uid: `0b2c7a51-3a5e-4b53-8f1e-${String(++serial).padStart(12, '0')}`,
      resourceVersion: String(13772844 + serial),
      creationTimestamp: '2026-11-27T16:30:31Z',
      managedFields: managedFields(manager),
    },
    data: { value },
  };
}

function auditEvent({
  verb = 'patch',
  name,
  value = 'v',
  manager = 'kubectl',
  level = 'RequestResponse',
  username = 'alice@example.com',
}: {
  verb?: string;
  name: string;
  value?: string;
  manager?: string;
  level?: string;
  username?: string;
}) {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: `3f1c2a10-0d7e-4a55-9a51-${String(++serial).padStart(12, '0')}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/shop/configmaps/${name}`,
    verb,
    user: { username, groups: ['system:authenticated'] },
    sourceIPs: ['10.0.0.4'],
    userAgent: 'kustomize-controller/v1.4.0 (linux/amd64) kubernetes/abc1234',
    objectRef: { resource: 'configmaps', namespace: 'shop', name, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    ...(level === 'RequestResponse' && verb !== 'get'
      ? { responseObject: configMap(name, value, manager) }
      : {}),
    requestReceivedTimestamp: '2026-11-28T11:19:13.937551Z',
    stageTimestamp: '2026-11-28T11:19:13.941570Z',
  };
}

const eventList = (items: unknown[]) => ({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items });

async function published(name: string): Promise<string | undefined> {
  const listed = await git(remote, 'ls-tree', '-r', '--name-only', 'main');
  const path = `clusters/prod/shop/configmaps/${name}.yaml`;
  return listed.split('\n').includes(path) ? await git(remote, 'show', `main:${path}`) : undefined;
}

const commits = async () => Number((await git(remote, 'rev-list', '--count', 'main')).trim());
const target = async () => (await app.http('GET', '/api/v1/targets/prod')).body;
const notRecordedLines = () => app.logs.filter((record) => record.event === 'EventsNotRecorded');

it('makes no commit for an excluded field manager, on the audit and events routes, and counts it by reason', async () => {
  // A first commit, so the branch exists and later counts compare against it.
  await app.http('POST', '/api/v1/targets/prod/audit', eventList([auditEvent({ name: 'first' })]));
  await app.advance(4000);
  expect(await published('first')).toBeDefined();
  const before = await commits();

  const audit = await app.http(
    'POST',
    '/api/v1/targets/prod/audit',
    eventList([
      auditEvent({ name: 'by-flux', manager: 'kustomize-controller' }),
      auditEvent({ name: 'by-alice', value: 'kept' }),
      auditEvent({ name: 'read', verb: 'get' }),
    ]),
  );
  expect(audit).toMatchObject({
    status: 200,
    body: {
      accepted: 1,
      ignored: 2,
      ignoredReasons: [
        {
          reason: 'excluded',
          message: `the field manager matches "kustomize-controller" of target "prod"'s exclude.fieldManagers`,
        },
        { reason: 'verb-not-recorded' },
      ],
    },
  });
  const events = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [
      { type: 'MODIFIED', resource: 'configmaps', object: configMap('by-helm', 'h', 'helm-controller') },
    ],
  });
  expect(events).toMatchObject({ status: 202, body: { accepted: 0, ignored: 1 } });
  await app.advance(4000);

  expect(await published('by-flux')).toBeUndefined();
  expect(await published('by-helm')).toBeUndefined();
  // One commit: alice's change of the same batch, nothing of the excluded ones.
  expect(await published('by-alice')).toContain('kept');
  expect(await commits()).toBe(before + 1);
  const changed = await git(remote, 'show', '--name-only', '--format=', 'main');
  expect(changed.trim()).toBe('clusters/prod/shop/configmaps/by-alice.yaml');
  const status = await target();
  expect(status.notRecorded.byReason).toEqual({ excluded: 2, 'verb-not-recorded': 1 });
  expect(status.notRecorded.count).toBe(3);
  expect(status.notRecorded.recent.map((example: { reason: string }) => example.reason)).toEqual([
    'excluded',
    'verb-not-recorded',
    'excluded',
  ]);
  expect(status.notRecorded.recent.at(-1)).toMatchObject({
    object: 'v1 configmaps shop/by-helm',
    message: expect.stringContaining('"helm-controller"'),
    at: expect.any(String),
  });
  // The list shows the count, as the dashboard's table does.
  const listed = (await app.http('GET', '/api/v1/targets')).body.targets[0];
  expect(listed.notRecorded).toBe(3);
});

it('logs each reason once per source and interval, then the events held back', async () => {
  const excludedLines = () => notRecordedLines().filter((line) => line.reason === 'excluded');
  const logged = excludedLines().length;
  expect(logged).toBe(1);
  for (let i = 0; i < 3; i++) {
    await app.http(
      'POST',
      '/api/v1/targets/prod/audit',
      eventList([auditEvent({ name: `again-${i}`, manager: 'kustomize-controller' })]),
    );
  }
  expect(excludedLines()).toHaveLength(1);
  await app.advance(61_000);
  await app.http(
    'POST',
    '/api/v1/targets/prod/audit',
    eventList([auditEvent({ name: 'later', manager: 'kustomize-controller' })]),
  );
  expect(excludedLines()).toHaveLength(2);
  // Held back: the events route's exclusion of the first test and the three above; then this one.
  expect(excludedLines().at(-1)).toMatchObject({ target: 'prod', source: 'anonymous', events: 5 });
});

it('raises AuditObjectsMissing for a Metadata-level batch, naming the level to set, until objects arrive', async () => {
  const answer = await app.http(
    'POST',
    '/api/v1/targets/prod/audit',
    eventList([auditEvent({ name: 'meta', level: 'Metadata' })]),
  );
  expect(answer).toMatchObject({
    status: 200,
    body: { accepted: 0, ignoredReasons: [{ reason: 'no-response-object' }] },
  });
  await app.advance(2000);
  expect(await published('meta')).toBeUndefined();
  const raised = (await target()).conditions.find(
    (condition: { type: string }) => condition.type === 'AuditObjectsMissing',
  );
  expect(raised).toMatchObject({ status: 'True', reason: 'AuditLevelMetadata' });
  expect(raised.message).toContain('level Metadata');
  expect(raised.message).toContain('set level RequestResponse');
  expect(raised.message).toContain('configmaps');
  expect((await target()).notRecorded.byReason['no-response-object']).toBe(1);

  await app.http(
    'POST',
    '/api/v1/targets/prod/audit',
    eventList([auditEvent({ name: 'meta', value: 'full' })]),
  );
  await app.advance(4000);
  expect(await published('meta')).toContain('full');
  expect((await target()).conditions.map((condition: { type: string }) => condition.type)).not.toContain(
    'AuditObjectsMissing',
  );
});
