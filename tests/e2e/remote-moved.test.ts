// The remote moved by another writer: kubescribe replays its writes on top of theirs, keeps
// everything of theirs, and writes each of its own commits once. Real `git http-backend` behind a
// fault proxy; the app on the embedded host with a virtual clock.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, startAppHost } from '../support/app/app-host';
import {
  commitAsAnotherWriter,
  configMapEvent,
  filesOn,
  history,
  writeTrailers,
} from '../support/app/branch-observations';
import type { FaultProxy } from '../support/git/start-fault-proxy';
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
      {
        name: 'prod',
        repository: 'state',
        branch: 'main',
        path: 'clusters/prod',
        window: { idleTimeout: '1s', maxDuration: '5s' },
      },
    ],
    limits: { gitCallTimeout: '5s', publishTimeout: '30s', pushCooldown: '0s' },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

async function publishChange(name: string): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/prod/events', { events: [configMapEvent(name)] });
  expect(response.status).toBe(202);
  await app.advance(5000);
  expect((await app.http('GET', '/api/v1/targets/prod')).body.publication).toMatchObject({
    pendingWrites: 0,
  });
}

/** Their commit is still on the branch, below ours, and each of our writes is there once. */
async function expectReplayedOnTopOf(theirs: string, ourNames: string[]): Promise<void> {
  await git(remote, 'merge-base', '--is-ancestor', theirs, 'main');
  const files = await filesOn(remote);
  for (const name of ourNames) expect(files).toContain(`clusters/prod/shop/configmaps/${name}.yaml`);
  const tip = (await history(remote))[0]!;
  expect(tip.sha).not.toBe(theirs);
  expect(await git(remote, 'show', '--name-only', '--format=', tip.sha)).toContain(`${ourNames.at(-1)}.yaml`);
  const trailers = await writeTrailers(remote);
  expect(new Set(trailers).size).toBe(trailers.length);
  await git(remote, 'fsck', '--strict');
}

describe('when another writer moves the branch', () => {
  it('given their push between two of our publications, our next write lands on top of theirs', async () => {
    await publishChange('before-them');
    const theirs = await commitAsAnotherWriter(
      remote,
      'main',
      { 'docs/runbook.md': 'page the on-call\n' },
      'Runbook by a person',
    );
    await publishChange('after-them');

    await expectReplayedOnTopOf(theirs, ['before-them', 'after-them']);
    expect(await git(remote, 'show', 'main:docs/runbook.md')).toBe('page the on-call\n');
    expect((await history(remote)).map((commit) => commit.subject)).toContain('Runbook by a person');
  });

  it('given their push racing ours (landing just before our push reaches the server), our write is replayed on top', async () => {
    let theirs = '';
    proxy.inject({
      on: 'push',
      fault: {
        kind: 'before',
        run: async () => {
          theirs = await commitAsAnotherWriter(
            remote,
            'main',
            { 'docs/race.md': 'I was first\n' },
            'Racing write',
          );
        },
      },
    });
    await publishChange('raced');

    expect(theirs).toMatch(/^[0-9a-f]{40}$/);
    expect(proxy.requests.filter((request) => request.fault === 'before')).toHaveLength(1);
    await expectReplayedOnTopOf(theirs, ['raced']);
    expect(await git(remote, 'show', 'main:docs/race.md')).toBe('I was first\n');
    // One commit of ours per write: 'raced' was committed once, though its first push lost the race.
    const touching = await git(
      remote,
      'log',
      '--format=%H',
      'main',
      '--',
      'clusters/prod/shop/configmaps/raced.yaml',
    );
    expect(touching.trim().split('\n')).toHaveLength(1);
  });
});
