// A stalled remote (the seed's "Ref listing, fetch, or push stalls"): a Git call that never answers
// is bounded by `limits.gitCallTimeout`, control returns to the branch, which keeps accepting, and
// the work is published once the remote answers again. Real `git http-backend` behind a fault
// proxy; the app on the embedded host with a virtual clock (the Git calls themselves run in real time).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, startAppHost } from '../support/app/app-host';
import {
  commitAsAnotherWriter,
  configMapEvent,
  filesOn,
  until,
  writeTrailers,
} from '../support/app/branch-observations';
import type { FaultProxy, GitRequestKind } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;
let proxy: FaultProxy;
let remote: string;

beforeAll(async () => {
  served = await startProxiedRemote();
  ({ remote, proxy } = served);
  app = await startAppHost({
    repositories: [{ name: 'state', url: `${proxy.url}/state.git` }],
    targets: [
      { name: 'prod', repository: 'state', branch: 'main', window: { idleTimeout: '1s', maxDuration: '5s' } },
    ],
    // A Git call bound far below the whole publication's: a timeout naming the call proves the call bound acted.
    limits: {
      gitCallTimeout: '2s',
      publishTimeout: '1m',
      retry: { initial: '10s', max: '20s' },
      pushCooldown: '0s',
    },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

async function post(name: string): Promise<number> {
  return (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMapEvent(name)] })).status;
}

async function publication() {
  return (await app.http('GET', '/api/v1/targets/prod')).body.publication;
}

/**
 * Stalls the next `kind` request, lets a window close so an attempt meets the stall, and posts a
 * change while the attempt hangs. Returns the publication status recorded after the attempt.
 */
async function attemptMeetingAStall(kind: GitRequestKind, name: string) {
  proxy.inject({ on: kind, fault: { kind: 'stall' }, times: 1 });
  expect(await post(name)).toBe(202);
  const seen = proxy.requests.length;
  const advancing = app.advance(2000);
  await until(
    () => proxy.requests.slice(seen).some((request) => request.kind === kind && request.fault === 'stall'),
    `the attempt reaches the stalled ${kind} request`,
  );
  expect(await post(`${name}-during-the-stall`)).toBe(202);
  await advancing;
  await until(() => proxy.heldOpen() === 0, 'kubescribe closes the stalled connection');
  return publication();
}

describe('when the remote stalls', () => {
  // In this order: a fresh branch lists the remote's refs first; once it knows the head it pushes
  // straight away, and fetches only when another writer moved the branch.
  it.each([
    ['ref listing', 'refs', 'advertise', 'stalled-listing'],
    ['fetch', 'fetch', 'fetch', 'stalled-fetch'],
    ['push', 'push', 'push', 'stalled-push'],
  ] as const)(
    'given a %s that never answers, the attempt gives up at the call bound, the branch keeps accepting, and publishes once the remote answers',
    async (_label, kind, step, name) => {
      if (kind === 'fetch')
        await commitAsAnotherWriter(remote, 'main', { 'notes.md': 'moved\n' }, 'Another writer');
      const status = await attemptMeetingAStall(kind, name);
      expect(status).toMatchObject({
        lastError: `${step} timed out after 2000 ms`,
        retryAt: expect.any(String),
      });
      expect(status.pendingWrites).toBeGreaterThan(0);

      // After the stall (the fault applied once), a change is still accepted and the retry publishes all.
      expect(await post(`${name}-after-the-stall`)).toBe(202);
      await app.advance(25_000);
      expect(await publication()).toMatchObject({ pendingWrites: 0, retryAt: null });
      const files = await filesOn(remote);
      for (const published of [name, `${name}-during-the-stall`, `${name}-after-the-stall`]) {
        expect(files).toContain(`shop/configmaps/${published}.yaml`);
      }
      if (kind === 'fetch') expect(files).toContain('notes.md');
      const trailers = await writeTrailers(remote);
      expect(new Set(trailers).size).toBe(trailers.length);
    },
  );
});
