// What the log and `/metrics` say while Git is failing: a warning per failed attempt with its
// reason and next retry, the 429s of a full budget, then the publication once Git is back.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { configMapEvent } from '../support/app/branch-observations';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

let app: AppHost;
let served: ProxiedRemote;

beforeAll(async () => {
  served = await startProxiedRemote();
  app = await startAppHost(
    oneTargetConfig({
      url: `${served.proxy.url}/state.git`,
      limits: { branchBufferBytes: '8Ki', gitCallTimeout: '5s', publishTimeout: '20s' },
    }),
    { LOG_LEVEL: 'info' },
  );
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

const big = (name: string) => configMapEvent(name, 'alice', { payload: 'x'.repeat(1500) });

async function scrape() {
  return parsePrometheusText(await (await fetch(`${app.host.url}/metrics`)).text());
}

describe('while the remote refuses every connection', () => {
  let branchKey = '';
  let accepted = 0;

  it('warns once per failed attempt, with the reason and the next retry', async () => {
    served.proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 1_000 });
    const posted = await app.http('POST', '/api/v1/targets/prod/events', { events: [big('one')] });
    expect(posted.status).toBe(202);
    accepted++;
    branchKey = posted.body.branch;
    await app.advance(6_000);
    await app.advance(25_000);
    const failures = app.logs.filter((record) => record.event === 'PublicationAttemptFailed');
    expect(failures.length).toBeGreaterThanOrEqual(2);
    for (const failure of failures) {
      expect(failure).toMatchObject({
        level: 'warn',
        branch: branchKey,
        branchName: 'main of state',
        reason: expect.stringMatching(/.+/),
        nextRetryAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(Date.parse(failure.nextRetryAt as string)).toBeGreaterThan(Date.parse(failure.time));
    }
    const samples = await scrape();
    expect(
      sampleValue(samples, 'kubescribe_publications_total', { branch: branchKey, outcome: 'failed' }),
    ).toBe(failures.length);
    expect(sampleValue(samples, 'kubescribe_pending_writes', { branch: branchKey })).toBe(1);
  });

  it('logs each 429 it answers, and the gauges match the status', async () => {
    let status = 202;
    for (let i = 0; status === 202 && i < 10; i++) {
      status = (await app.http('POST', '/api/v1/targets/prod/events', { events: [big(`more-${i}`)] })).status;
      if (status === 202) accepted++;
      await app.advance(6_000);
    }
    expect(status).toBe(429);
    expect(app.logs.filter((record) => record.event === 'RequestRefused')).toEqual([
      expect.objectContaining({ level: 'warn', status: 429, reason: 'intake-paused', target: 'prod' }),
    ]);
    const samples = await scrape();
    const publication = (await app.http('GET', '/api/v1/targets/prod')).body.publication;
    expect(sampleValue(samples, 'kubescribe_intake_paused', { branch: branchKey })).toBe(
      publication.intakePaused ? 1 : 0,
    );
    expect(sampleValue(samples, 'kubescribe_pending_writes', { branch: branchKey })).toBe(
      publication.pendingWrites,
    );
    expect(sampleValue(samples, 'kubescribe_pending_bytes', { branch: branchKey })).toBe(
      publication.pendingBytes,
    );
    expect(
      sampleValue(samples, 'kubescribe_requests_refused_total', {
        target: 'prod',
        status: '429',
        reason: 'intake-paused',
      }),
    ).toBe(1);
  });

  it('logs the publication once Git is back', async () => {
    served.proxy.reset();
    await app.advance(5 * 60_000);
    const landed = app.logs.filter((record) => record.event === 'PublicationLanded');
    expect(landed).toEqual([
      expect.objectContaining({ level: 'info', targets: ['prod'], branch: branchKey }),
    ]);
    expect(landed[0]?.changes).toBe(accepted);
    expect(accepted).toBeGreaterThanOrEqual(2);
    const samples = await scrape();
    expect(sampleValue(samples, 'kubescribe_intake_paused', { branch: branchKey })).toBe(0);
    expect(sampleValue(samples, 'kubescribe_pending_writes', { branch: branchKey })).toBe(0);
  });
});
