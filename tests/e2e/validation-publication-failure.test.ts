// The seed's validation rows about failed publication, end to end: a held save outliving the
// controller's safety window, failures under continuous arrivals, and a rejected push.
// (Row "save's first push fails, then the branch goes idle" is git-outage.test.ts's last case:
// the held save resolves with its own SHA when Git returns, without another edit.)
// Real `git http-backend` behind a fault proxy; the app on the embedded host with a virtual clock.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, startAppHost } from '../support/app/app-host';
import { configMapEvent, filesOn, history, writeTrailers } from '../support/app/branch-observations';
import { createBareRepo } from '../support/git/create-bare-repo';
import { type FaultProxy, startFaultProxy } from '../support/git/start-fault-proxy';
import { startGitServer } from '../support/git/start-git-server';

const REJECTION = 'GH006: Protected branch update failed for refs/heads/main';

let app: AppHost;
let server: { url: string; stop(): Promise<void> };
let proxy: FaultProxy;
let outage: string;
let guarded: string;
let rejectFlag: string;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'ks-failure-'));
  rejectFlag = join(root, 'reject-pushes');
  outage = await createBareRepo({ root, name: 'outage.git', files: { 'README.md': 'state\n' } });
  guarded = await createBareRepo({
    root,
    name: 'guarded.git',
    files: { 'README.md': 'state\n' },
    preReceive: `if [ -f '${rejectFlag}' ]; then echo '${REJECTION}' >&2; exit 1; fi`,
  });
  server = await startGitServer({ root });
  proxy = await startFaultProxy({ upstream: server.url });
  const window = { idleTimeout: '1s', maxDuration: '5s' };
  app = await startAppHost({
    repositories: [
      { name: 'outage', url: `${proxy.url}/outage.git` },
      { name: 'guarded', url: `${server.url}/guarded.git` },
    ],
    targets: [
      { name: 'prod', repository: 'outage', branch: 'main', window },
      { name: 'guarded', repository: 'guarded', branch: 'main', window },
    ],
    limits: {
      gitCallTimeout: '5s',
      publishTimeout: '20s',
      retry: { initial: '10s', max: '40s' },
      pushCooldown: '0s',
    },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  await app?.stop();
  await proxy?.stop();
  await server?.stop();
});

async function post(target: string, name: string, username = 'alice'): Promise<void> {
  const response = await app.http('POST', `/api/v1/targets/${target}/events`, {
    events: [configMapEvent(name, username)],
  });
  expect(response.status).toBe(202);
}

async function publication(target: string) {
  return (await app.http('GET', `/api/v1/targets/${target}`)).body.publication;
}

async function saveStatus(target: string, id: string) {
  return (await app.http('GET', `/api/v1/targets/${target}/saves/${id}`)).body;
}

function pushesSeen(): number {
  return proxy.requests.filter((request) => request.kind === 'push').length;
}

describe('a save held while publication fails', () => {
  it('given Git down past the safety window, a withdrawal answers 409 and the save commits once Git returns', async () => {
    proxy.inject({ on: 'push', fault: { kind: 'status', status: 500 }, times: 10_000 });
    await post('prod', 'held-change');
    await app.http('POST', '/api/v1/targets/prod/saves', {
      id: 'held-save',
      message: 'Held through the outage',
      author: { username: 'alice' },
    });
    await app.advance(5000);
    expect(await saveStatus('prod', 'held-save')).toMatchObject({ phase: 'WaitingForPush' });

    // Ten minutes: far beyond a controller's safety window. The save must not be failed or lost.
    await app.advance(10 * 60_000);
    const withdrawal = await app.http('DELETE', '/api/v1/targets/prod/saves/held-save');
    expect(withdrawal).toMatchObject({ status: 409, body: { error: 'save-held', phase: 'WaitingForPush' } });
    expect(await publication('prod')).toMatchObject({ retryAt: expect.any(String), pendingWrites: 1 });
    expect(await saveStatus('prod', 'held-save')).toMatchObject({ phase: 'WaitingForPush' });

    proxy.reset();
    await app.advance(60_000);
    const saved = (await history(outage)).find((commit) => commit.subject === 'Held through the outage');
    expect(saved).toBeDefined();
    expect(await saveStatus('prod', 'held-save')).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: saved?.sha,
    });
    expect(await filesOn(outage)).toContain('shop/configmaps/held-change.yaml');
  });
});

describe('publication failing under continuous arrivals', () => {
  it('given a change every second, attempts still follow the one retry schedule, then all is published', async () => {
    proxy.inject({ on: 'push', fault: { kind: 'status', status: 500 }, times: 10_000 });
    const attemptTimes: number[] = [];
    let seen = pushesSeen();
    const start = app.now();
    for (let second = 0; second < 90; second++) {
      await post('prod', `arrival-${second}`, second % 2 === 0 ? 'alice' : 'bob');
      await app.advance(1000);
      if (pushesSeen() > seen) attemptTimes.push((app.now() - start) / 1000);
      seen = pushesSeen();
    }
    // 10s doubling to 40s: the first failure, then retries 10s, 20s, 40s, 40s later. Arrivals
    // (windows closing every few seconds) never bring an attempt forward.
    const gaps = attemptTimes.slice(1).map((at, index) => at - attemptTimes[index]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    expect(gaps.slice(0, 3)).toEqual([10, 20, 40]);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(10);

    proxy.reset();
    await app.advance(60_000);
    expect(await publication('prod')).toMatchObject({ pendingWrites: 0, retryAt: null });
    const files = await filesOn(outage);
    for (let second = 0; second < 90; second++)
      expect(files).toContain(`shop/configmaps/arrival-${second}.yaml`);
    const trailers = await writeTrailers(outage);
    expect(new Set(trailers).size).toBe(trailers.length);
  });
});

describe('a push the remote rejects', () => {
  it("given a pre-receive hook refusing the branch, its message shows in the target status and the held save's conditions, and the save commits once the hook allows it", async () => {
    writeFileSync(rejectFlag, 'on\n');
    await post('guarded', 'guarded-change');
    await app.http('POST', '/api/v1/targets/guarded/saves', {
      id: 'guarded-save',
      message: 'Through the guard',
      author: { username: 'alice' },
    });
    await app.advance(5000);
    const status = await publication('guarded');
    expect(status.lastError).toContain(REJECTION);
    expect(status).toMatchObject({ pendingWrites: 1, retryAt: expect.any(String) });
    const held = await saveStatus('guarded', 'guarded-save');
    expect(held).toMatchObject({ phase: 'WaitingForPush' });
    // The held save's conditions carry the branch's cause (its `message` stays the commit message).
    const ready = held.conditions.find((condition: { type: string }) => condition.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', message: expect.stringContaining(REJECTION) });
    expect((await history(guarded)).map((commit) => commit.subject)).toEqual(['seed']);

    rmSync(rejectFlag);
    expect(existsSync(rejectFlag)).toBe(false);
    await app.advance(60_000);
    const saved = (await history(guarded)).find((commit) => commit.subject === 'Through the guard');
    expect(await saveStatus('guarded', 'guarded-save')).toMatchObject({
      outcome: 'Committed',
      commit: saved?.sha,
    });
    expect(await publication('guarded')).toMatchObject({ pendingWrites: 0 });
  });
});
