// A cluster recorded by the forwarder (watch events through the events route: state and deletes,
// no user) and by its audit log through Event Hubs (the embedded host's local hub, records built as
// tests/support/eventhub/aks-records.ts models AKS's), end to end on the embedded host with its
// virtual clock: each change is one commit by its audit user, whichever feed brings it first.
// Watch objects carry metadata.uid and metadata.resourceVersion as the apiserver serves them, and
// so does the audit event's responseObject (a delete's Status: details.uid).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { type AuditEventSpec, auditEvent, body, record } from '../support/eventhub/aks-records';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const HUB = 'aks-audit';
const COMMITTER = 'kubescribe <kubescribe@example.invalid>';
let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-combined-')), 'state.git'));
  app = await startAppHost(
    {
      ...oneTargetConfig({
        url: remote,
        target: { window: { idleTimeout: '2s', maxDuration: '1m' }, attributionWait: '1m' },
        limits: { pushCooldown: '0s' },
      }),
      sources: [
        {
          name: 'aks-prod',
          kind: 'eventHub',
          eventHub: { hub: HUB, consumerGroup: 'kubescribe' },
          targets: ['prod'],
        },
      ],
    },
    { KUBESCRIBE_EVENTHUB_NAME: HUB, KUBESCRIBE_EVENTHUB_CONSUMER_GROUP: 'kubescribe' },
  );
});

afterAll(async () => {
  await app?.stop();
});

const file = (name: string) => `clusters/prod/shop/configmaps/${name}.yaml`;

async function commitsOf(name: string): Promise<string[]> {
  if ((await head()) === '') return [];
  const log = await git(remote, 'log', '--format=%an <%ae>|%s', 'main', '--', file(name));
  return log.split('\n').filter((line) => line);
}

async function head(): Promise<string> {
  return (await git(remote, 'rev-parse', '--verify', '-q', 'main').catch(() => '')).trim();
}

/** What the forwarder posts for a watch event: the object as the apiserver serves it, no user. Answers the branch key. */
async function forward(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  name: string,
  resourceVersion: string,
  data: Record<string, string> = {},
): Promise<string> {
  const object = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      resourceVersion,
      creationTimestamp: '2026-11-27T16:30:31Z',
    },
    data,
  };
  const answer = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [{ type, resource: 'configmaps', object }],
  });
  expect(answer.status).toBe(202);
  return answer.body.branch;
}

let nextAuditID = 0;
/** The same request's audit record, as the diagnostic setting streams it to the hub. */
function audit(spec: Omit<AuditEventSpec, 'auditID' | 'namespace' | 'at'>): void {
  nextAuditID += 1;
  const event = auditEvent({
    ...spec,
    auditID: `7c1d2e3f-0000-4000-8000-${String(nextAuditID).padStart(12, '0')}`,
    namespace: 'shop',
    // the apiserver's stageTimestamp, later for each request (the feed memory orders deletes by it)
    at: `2026-11-30T10:15:${String(nextAuditID).padStart(2, '0')}.100000Z`,
  });
  app.host.eventHubs.publish(HUB, String(nextAuditID % 2), [body(record('kube-audit-admin', event))]);
}

describe('the forwarder and the Event Hubs feed on one target', () => {
  it('holds the forwarder’s change until its audit record claims it: one commit, by the audit user', async () => {
    await forward('ADDED', 'settings', '100', { mode: 'fast' });
    await app.advance(10_000);
    expect(await commitsOf('settings')).toEqual([]);
    audit({
      verb: 'create',
      user: 'alice@contoso.com',
      name: 'settings',
      resourceVersion: '100',
      data: { mode: 'fast' },
    });
    await app.advance(5_000);
    expect(await commitsOf('settings')).toEqual([
      'alice@contoso.com <alice@contoso.com>|[CREATE] v1/configmaps shop/settings',
    ]);
    // past the wait, nothing more
    await app.advance(70_000);
    expect(await commitsOf('settings')).toHaveLength(1);
  });

  it('commits a change no audit record claims once the wait has passed; its late record makes no second commit', async () => {
    await forward('MODIFIED', 'orphan', '200', { mode: 'alone' });
    await app.advance(50_000);
    expect(await commitsOf('orphan')).toEqual([]);
    await app.advance(15_000);
    expect(await commitsOf('orphan')).toEqual([`${COMMITTER}|[UPDATE] v1/configmaps shop/orphan`]);
    const before = await head();
    audit({
      verb: 'patch',
      user: 'bob@contoso.com',
      name: 'orphan',
      resourceVersion: '200',
      data: { mode: 'alone' },
    });
    await app.advance(10_000);
    expect(await head()).toBe(before);
  });

  it('commits an audit record that arrives first, and the forwarder’s event of the same change makes nothing', async () => {
    audit({
      verb: 'create',
      user: 'carol@contoso.com',
      name: 'early',
      resourceVersion: '300',
      data: { mode: 'first' },
    });
    await app.advance(5_000);
    expect(await commitsOf('early')).toEqual([
      'carol@contoso.com <carol@contoso.com>|[CREATE] v1/configmaps shop/early',
    ]);
    const before = await head();
    await forward('ADDED', 'early', '300', { mode: 'first' });
    await app.advance(70_000);
    expect(await head()).toBe(before);
  });

  it('commits a delete seen by both once, by the audit user', async () => {
    await forward('DELETED', 'settings', '400', { mode: 'fast' });
    await app.advance(5_000);
    audit({ verb: 'delete', user: 'bob@contoso.com', name: 'settings' });
    await app.advance(5_000);
    expect(await commitsOf('settings')).toEqual([
      'bob@contoso.com <bob@contoso.com>|[DELETE] v1/configmaps shop/settings',
      'alice@contoso.com <alice@contoso.com>|[CREATE] v1/configmaps shop/settings',
    ]);
    await app.advance(70_000);
    expect(await commitsOf('settings')).toHaveLength(2);
  });

  it('shows what it holds for attribution: in the status, the pending listing, the branch and the metrics', async () => {
    const key = { branch: await forward('ADDED', 'waiting', '500', { mode: 'slow' }) };
    const heldAt = new Date(app.now()).toISOString();
    const releasesAt = new Date(app.now() + 60_000).toISOString();
    await app.advance(5_000);
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(status.body.heldForAttribution).toEqual({
      count: 1,
      bytes: expect.any(Number),
      oldestSince: heldAt,
      releasesAt,
    });
    expect(status.body.heldForAttribution.bytes).toBeGreaterThan(0);
    const pending = await app.http('GET', '/api/v1/targets/prod/pending');
    expect(pending.body.items).toEqual([
      { path: file('waiting'), operation: 'upsert', writeId: null, since: heldAt, heldUntil: releasesAt },
    ]);
    const samples = parsePrometheusText(await (await fetch(`${app.host.url}/metrics`)).text());
    expect(sampleValue(samples, 'kubescribe_held_changes', key)).toBe(1);
    expect(sampleValue(samples, 'kubescribe_held_bytes', key)).toBe(status.body.heldForAttribution.bytes);
    expect((await app.http('GET', `/api/v1/branches/${key.branch}`)).body.heldForAttribution).toEqual(
      status.body.heldForAttribution,
    );

    // released unclaimed at the wait's end: nothing held any more, the change committed
    await app.advance(60_000);
    expect((await app.http('GET', '/api/v1/targets/prod')).body.heldForAttribution).toEqual({
      count: 0,
      bytes: 0,
      oldestSince: null,
      releasesAt: null,
    });
    expect(await commitsOf('waiting')).toEqual([`${COMMITTER}|[CREATE] v1/configmaps shop/waiting`]);
    const after = parsePrometheusText(await (await fetch(`${app.host.url}/metrics`)).text());
    expect(sampleValue(after, 'kubescribe_held_changes', key)).toBe(0);
  });

  it('drops held changes on an operator discard: the wait’s end commits nothing, nor their late audit record', async () => {
    const before = await head();
    const key = await forward('MODIFIED', 'dropped', '600', { mode: 'unwanted' });
    await app.advance(5_000);
    expect((await app.http('GET', `/api/v1/branches/${key}`)).body.heldForAttribution.count).toBe(1);
    const discarded = await app.http('POST', `/api/v1/branches/${key}/discard`, {
      reason: 'recorded by mistake',
    });
    expect(discarded.status).toBe(202);
    await app.advance(1_000);
    expect((await app.http('GET', `/api/v1/branches/${key}`)).body.heldForAttribution.count).toBe(0);
    expect((await app.http('GET', '/api/v1/targets/prod/pending')).body.items).toEqual([]);

    await app.advance(70_000);
    audit({
      verb: 'patch',
      user: 'dave@contoso.com',
      name: 'dropped',
      resourceVersion: '600',
      data: { mode: 'unwanted' },
    });
    await app.advance(70_000);
    expect(await head()).toBe(before);

    // the next change is taken as usual
    await forward('MODIFIED', 'dropped', '601', { mode: 'wanted' });
    audit({
      verb: 'patch',
      user: 'dave@contoso.com',
      name: 'dropped',
      resourceVersion: '601',
      data: { mode: 'wanted' },
    });
    await app.advance(10_000);
    expect(await commitsOf('dropped')).toEqual([
      'dave@contoso.com <dave@contoso.com>|[UPDATE] v1/configmaps shop/dropped',
    ]);
  });
});
