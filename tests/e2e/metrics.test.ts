// What `/metrics` and the log say after a known set of requests: the counts equal what was posted.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { appOnNewRepository, git } from '../support/app/app-host';
import { configMapEvent } from '../support/app/branch-observations';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const setup = appOnNewRepository();
const SECRET_VALUE = 'c3VwZXItc2VjcmV0LXRlbGVtZXRyeQ==';

function secretEvent() {
  return {
    type: 'MODIFIED',
    resource: 'secrets',
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop' },
      data: { password: SECRET_VALUE },
    },
  };
}

async function scrape() {
  const res = await fetch(`${setup.app.host.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return parsePrometheusText(await res.text());
}

describe('after changes, ignored events and refusals are posted and pushed', () => {
  let branchKey = '';
  let head = '';

  beforeAll(async () => {
    const { app, remote } = setup;
    const first = await app.http('POST', '/api/v1/targets/prod/events', {
      events: [configMapEvent('a'), configMapEvent('b'), configMapEvent('c'), secretEvent()],
    });
    expect(first.status).toBe(202);
    branchKey = first.body.branch;
    const second = await app.http('POST', '/api/v1/targets/prod/events', {
      events: [configMapEvent('d'), configMapEvent('e'), secretEvent()],
    });
    expect(second.body).toMatchObject({ accepted: 2, ignored: 1 });
    expect((await app.http('POST', '/api/v1/targets/prod/events', { events: 'not a list' })).status).toBe(
      400,
    );
    expect((await app.http('POST', '/api/v1/targets/nowhere/events', { events: [] })).status).toBe(404);
    await app.advance(7_000);
    head = (await git(remote, 'rev-parse', 'main')).trim();
  });

  it('counts events received, accepted and ignored by reason', async () => {
    const samples = await scrape();
    const watch = { target: 'prod', intake: 'watch' };
    expect(sampleValue(samples, 'kubescribe_events_received_total', watch)).toBe(7);
    expect(sampleValue(samples, 'kubescribe_events_accepted_total', watch)).toBe(5);
    expect(
      sampleValue(samples, 'kubescribe_events_ignored_total', {
        target: 'prod',
        reason: 'sensitive-resource',
      }),
    ).toBe(2);
  });

  it('counts refusals by status, naming only configured targets', async () => {
    const samples = await scrape();
    expect(
      sampleValue(samples, 'kubescribe_requests_refused_total', {
        target: 'prod',
        status: '400',
        reason: 'invalid-input',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'kubescribe_requests_refused_total', {
        target: '',
        status: '404',
        reason: 'target-not-found',
      }),
    ).toBe(1);
    expect(samples.some((sample) => Object.values(sample.labels).includes('nowhere'))).toBe(false);
  });

  it('counts the publication, its changes, the window and what is left pending', async () => {
    const samples = await scrape();
    const branch = { branch: branchKey };
    expect(sampleValue(samples, 'kubescribe_publications_total', { ...branch, outcome: 'landed' })).toBe(1);
    expect(
      sampleValue(samples, 'kubescribe_publications_total', { ...branch, outcome: 'failed' }),
    ).toBeUndefined();
    expect(sampleValue(samples, 'kubescribe_changes_published_total', branch)).toBe(5);
    expect(sampleValue(samples, 'kubescribe_change_to_pushed_seconds_count', branch)).toBe(5);
    // the window idled out 5 s after the last change; the push followed within the same advance
    expect(sampleValue(samples, 'kubescribe_change_to_pushed_seconds_bucket', { ...branch, le: '2.5' })).toBe(
      0,
    );
    expect(sampleValue(samples, 'kubescribe_change_to_pushed_seconds_bucket', { ...branch, le: '10' })).toBe(
      5,
    );
    expect(sampleValue(samples, 'kubescribe_windows_opened_total', { ...branch, target: 'prod' })).toBe(1);
    expect(
      sampleValue(samples, 'kubescribe_windows_closed_total', { ...branch, reason: 'idle-timeout' }),
    ).toBe(1);
    expect(sampleValue(samples, 'kubescribe_pending_writes', branch)).toBe(0);
    expect(sampleValue(samples, 'kubescribe_pending_bytes', branch)).toBe(0);
    expect(sampleValue(samples, 'kubescribe_intake_paused', branch)).toBe(0);
    expect(
      sampleValue(samples, 'kubescribe_branch_info', { ...branch, repository: 'state', branch_name: 'main' }),
    ).toBe(1);
  });

  it('times Git calls, activities and entity operations', async () => {
    const samples = await scrape();
    // a local repository is written under its lock: one Git call of its own
    expect(
      sampleValue(samples, 'kubescribe_git_call_duration_seconds_count', { call: 'lock', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(samples, 'kubescribe_activity_duration_seconds_count', {
        activity: 'publish',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(samples, 'kubescribe_entity_operation_duration_seconds_count', {
        operation: 'apply',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('logs one line for the publication, naming target, branch, commit and changes', () => {
    const lines = setup.app.logs.filter((record) => record.event === 'PublicationLanded');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        targets: ['prod'],
        branch: branchKey,
        branchName: 'main of state',
        commit: head,
        changes: 5,
        message: expect.stringContaining(head.slice(0, 12)),
      }),
    ]);
  });

  it('logs each refusal with its status and reason', () => {
    const refusals = setup.app.logs.filter((record) => record.event === 'RequestRefused');
    expect(refusals).toEqual([
      expect.objectContaining({ level: 'info', status: 400, reason: 'invalid-input', target: 'prod' }),
      expect.objectContaining({ level: 'info', status: 404, reason: 'target-not-found' }),
    ]);
    expect(refusals[1]).not.toHaveProperty('target');
  });

  it('never logs the Secret it ignored', () => {
    expect(JSON.stringify(setup.app.logs)).not.toContain(SECRET_VALUE);
  });
});
