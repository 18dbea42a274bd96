// Restarts of the real app on the embedded host, with its Git remote behind a counting fault proxy:
// recorded decisions are replayed without Git, and a save attached when the host stopped keeps its window.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { configMapEvent, filesOn, history } from '../support/app/branch-observations';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let git: ProxiedRemote;
let app: AppHost;

beforeAll(async () => {
  git = await startProxiedRemote();
  app = await startAppHost(
    oneTargetConfig({
      url: git.url,
      target: { path: '.', window: { idleTimeout: '5s', maxDuration: '1m' } },
      limits: { pushCooldown: '0s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await git?.stop();
});

async function post(name: string, username = 'alice'): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [configMapEvent(name, username)],
  });
  expect(response.status).toBe(202);
}

describe('recorded decisions replayed after a restart', () => {
  it('given a publication already recorded, the restarted host sends no Git request and makes no commit', async () => {
    await post('replayed');
    await app.advance(8000);
    expect(await filesOn(git.remote)).toContain('shop/configmaps/replayed.yaml');
    const commits = (await history(git.remote)).length;
    const requests = git.proxy.requests.length;

    await app.restart();
    await app.advance(60_000);

    expect(git.proxy.requests.slice(requests)).toEqual([]);
    expect(await history(git.remote)).toHaveLength(commits);
    const target = await app.http('GET', '/api/v1/targets/prod');
    expect(target.body.publication).toMatchObject({ pendingWrites: 0 });
  });
});

describe('a restart with a save attached to an open window', () => {
  it("given the host stops mid-window, the save's own commit holds its window's files under its message", async () => {
    await post('attached-one', 'bob');
    await post('attached-two', 'bob');
    const registered = await app.http('POST', '/api/v1/targets/prod/saves', {
      id: 'bobs-save',
      message: 'Bob saves his two maps',
      author: { username: 'bob' },
    });
    expect(registered.status).toBe(202);
    await app.advance(1000);
    expect((await app.http('GET', '/api/v1/targets/prod/saves/bobs-save')).body).toMatchObject({
      phase: 'CollectingWindow',
    });

    await app.restart();
    await app.advance(10_000);

    const own = (await history(git.remote)).find((commit) => commit.subject === 'Bob saves his two maps');
    expect(own).toBeDefined();
    const files = await filesOn(git.remote, own!.sha);
    expect(files).toEqual(
      expect.arrayContaining(['shop/configmaps/attached-one.yaml', 'shop/configmaps/attached-two.yaml']),
    );
    expect((await app.http('GET', '/api/v1/targets/prod/saves/bobs-save')).body).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: own!.sha,
    });
    expect(
      (await history(git.remote)).filter((commit) => commit.subject === 'Bob saves his two maps'),
    ).toHaveLength(1);
  });
});
