// An operator discards the work a branch holds and can never publish (its repository was rebound,
// or is gone for good): the writes go, their saves fail with the operator's reason, intake resumes,
// and the branch publishes the next change as usual.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;

beforeAll(async () => {
  served = await startProxiedRemote();
  app = await startAppHost(
    oneTargetConfig({
      url: `${served.proxy.url}/state.git`,
      limits: { gitCallTimeout: '5s', publishTimeout: '20s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

const change = (name: string) => ({
  events: [
    {
      type: 'ADDED',
      resource: 'configmaps',
      author: { username: 'alice' },
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'shop' },
        data: { a: name },
      },
    },
  ],
});

it('drops held writes on an operator discard, fails their saves with the reason, and publishes what comes next', async () => {
  served.proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 10_000 });
  const posted = await app.http('POST', '/api/v1/targets/prod/events', change('held'));
  const branch: string = posted.body.branch;
  await app.http('POST', '/api/v1/targets/prod/saves', {
    id: 'held-save',
    message: 'Held',
    author: { username: 'alice' },
  });
  await app.advance(10_000);
  const before = await app.http('GET', `/api/v1/branches/${branch}`);
  expect(before).toMatchObject({
    status: 200,
    body: { branch, targets: ['prod'], publication: { pendingWrites: 1 } },
  });

  expect((await app.http('POST', `/api/v1/branches/${branch}/discard`, {})).status).toBe(400);
  expect(
    (await app.http('POST', '/api/v1/branches/b-000000000000000000000000/discard', { reason: 'x' })).status,
  ).toBe(404);
  const discarded = await app.http('POST', `/api/v1/branches/${branch}/discard`, {
    reason: 'the repository moved',
  });
  expect(discarded.status).toBe(202);
  // The retry schedule ends at the driver's next plan: nothing is owed any more.
  await app.advance(60_000);

  const after = await app.http('GET', `/api/v1/branches/${branch}`);
  expect(after.body.publication).toMatchObject({ pendingWrites: 0, retryAt: null, intakePaused: false });
  const save = (await app.http('GET', '/api/v1/targets/prod/saves/held-save')).body;
  expect(save).toMatchObject({ phase: 'Resolved', outcome: 'Failed' });
  expect(JSON.stringify(save.conditions)).toContain('discarded by an operator: the repository moved');

  served.proxy.reset();
  await app.http('POST', '/api/v1/targets/prod/events', change('next'));
  await app.advance(10_000);
  const files = await git(served.remote, 'ls-tree', '-r', '--name-only', 'main');
  expect(files.trim().split('\n')).toEqual(['README.md', 'clusters/prod/shop/configmaps/next.yaml']);
});
