// The seed's parent-recovery rows end to end: "parent returns, but publication still fails" and
// "parent disappears again during recovery". The target writes branch `feature`, which starts from
// `release`; neither exists at first. Real `git http-backend` behind a fault proxy; the app on the
// embedded host with a virtual clock.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, startAppHost } from '../support/app/app-host';
import {
  branchExists,
  commitAsAnotherWriter,
  configMapEvent,
  filesOn,
  writeTrailers,
} from '../support/app/branch-observations';
import type { FaultProxy } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;
let proxy: FaultProxy;
let remote: string;
const accepted: string[] = [];

beforeAll(async () => {
  served = await startProxiedRemote({ files: { 'README.md': 'state\n' } });
  ({ remote, proxy } = served);
  app = await startAppHost({
    repositories: [{ name: 'state', url: `${proxy.url}/state.git` }],
    targets: [
      {
        name: 'feature',
        repository: 'state',
        branch: 'feature',
        parentBranch: 'release',
        path: 'clusters/feature',
        window: { idleTimeout: '1s', maxDuration: '5s' },
      },
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
  await served?.stop();
});

async function post(name: string): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/feature/events', {
    events: [configMapEvent(name)],
  });
  expect(response.status).toBe(202);
  accepted.push(name);
}

async function publication() {
  return (await app.http('GET', '/api/v1/targets/feature')).body.publication;
}

function pushesSeen(): number {
  return proxy.requests.filter((request) => request.kind === 'push').length;
}

describe('parent recovery', () => {
  it('given neither the write branch nor its parent exists, the target shows the parent missing and keeps the work', async () => {
    await post('first');
    await app.advance(5000);
    expect(await publication()).toMatchObject({ parentMissing: true, pendingWrites: 1 });
    expect(await branchExists(remote, 'feature')).toBe(false);
  });

  it('given the parent returns but pushes still fail, new commits wait for the one retry deadline', async () => {
    await git(remote, 'branch', 'release', 'main');
    await commitAsAnotherWriter(remote, 'release', { 'RELEASE.md': 'release 1\n' }, 'Release line');
    proxy.inject({ on: 'push', fault: { kind: 'status', status: 500 }, times: 10_000 });

    const attemptTimes: number[] = [];
    let seen = pushesSeen();
    const start = app.now();
    for (let second = 0; second < 80; second++) {
      await post(`during-recovery-${second}`);
      await app.advance(1000);
      if (pushesSeen() > seen) attemptTimes.push((app.now() - start) / 1000);
      seen = pushesSeen();
    }
    // However many windows closed meanwhile, pushes come no faster than the retry schedule allows.
    // The parent's return publishes at once; the schedule then continues from the parent-missing
    // failure's 10s: 20s, then 40s (the maximum). Arrivals never bring an attempt forward.
    const gaps = attemptTimes.slice(1).map((at, index) => at - attemptTimes[index]!);
    expect(gaps).toEqual([20, 40]);
    expect(await publication()).toMatchObject({ parentMissing: false, retryAt: expect.any(String) });
    expect(await branchExists(remote, 'feature')).toBe(false);
  });

  it('given the parent disappears again before a push succeeds, the retained writes stay pending and the parent shows missing', async () => {
    const pending = (await publication()).pendingWrites as number;
    await git(remote, 'branch', '-D', 'release');
    proxy.reset();
    await post('after-parent-left');
    await app.advance(60_000);
    const status = await publication();
    expect(status).toMatchObject({ parentMissing: true });
    expect(status.pendingWrites).toBeGreaterThanOrEqual(pending);
    expect(await branchExists(remote, 'feature')).toBe(false);
  });

  it('given the parent returns for good, every accepted change is published on the write branch, on top of the parent', async () => {
    await git(remote, 'branch', 'release', 'main');
    const release = await commitAsAnotherWriter(
      remote,
      'release',
      { 'RELEASE.md': 'release 2\n' },
      'Release again',
    );
    await app.advance(90_000);
    expect(await publication()).toMatchObject({ parentMissing: false, pendingWrites: 0, retryAt: null });
    await git(remote, 'merge-base', '--is-ancestor', release, 'feature');
    const files = await filesOn(remote, 'feature');
    for (const name of accepted) expect(files).toContain(`clusters/feature/shop/configmaps/${name}.yaml`);
    const trailers = await writeTrailers(remote, 'feature');
    expect(new Set(trailers).size).toBe(trailers.length);
    await git(remote, 'fsck', '--strict');
  });
});
