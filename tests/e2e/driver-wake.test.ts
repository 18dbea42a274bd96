// A wake that finds the branch's driver ended starts it again at once. The durable-functions client
// answers a raised event to an ended instance (HTTP 410) as delivered (DurableClient.raiseEvent:
// `case 202: case 410: return`), so a wake alone is lost; and a driver ends whenever code of
// another version meets it (docs/upgrades.md), which a deployment's first requests do. And an admit
// after a wake reads the branch's state afresh (docs/architecture.md, "Wake the driver").
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { driverInstanceId } from '../../shared/app/runtime/durable-names';
import { appOnNewRepository, git } from '../support/app/app-host';

const world = appOnNewRepository();

const configMap = (name: string) => ({
  type: 'ADDED',
  resource: 'configmaps',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { a: '1' } },
});

it('given a driver that ended after a request woke it, the next request starts it again, before the keeper', async () => {
  // The keeper runs at each minute: start far enough from the next one that it cannot be the reviver.
  const toNextMinute = 60_000 - (world.app.now() % 60_000);
  if (toNextMinute < 30_000) await world.app.advance(toNextMinute + 1000);
  const first = await world.app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('first')] });
  expect(first.status).toBe(202);
  await world.app.advance(10_000);
  expect((await git(world.remote, 'ls-tree', '-r', '--name-only', 'main')).trim()).toBe(
    'clusters/prod/shop/configmaps/first.yaml',
  );
  const instanceId = driverInstanceId(first.body.branch);
  expect(world.app.host.client.terminate(instanceId, 'ended by other code, as a test')).toBe('accepted');
  await world.app.advance(1000);
  expect(world.app.host.client.getStatus(instanceId)).toMatchObject({ runtimeStatus: 'Terminated' });

  const second = await world.app.http('POST', '/api/v1/targets/prod/events', {
    events: [configMap('second')],
  });
  expect(second.status).toBe(202);
  await world.app.advance(10_000);
  expect(world.app.host.client.getStatus(instanceId)).toMatchObject({ runtimeStatus: 'Running' });
  expect((await git(world.remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n')).toEqual([
    'clusters/prod/shop/configmaps/first.yaml',
    'clusters/prod/shop/configmaps/second.yaml',
  ]);
});

it('an admit after a wake reads the branch afresh: the window that wake was for needs no second wake', async () => {
  // The admission reads the branch through a one-second cache of real time; the virtual clock stands
  // still meanwhile, so without the fresh read the second admit would see the branch as it was
  // before the first (no window) and wake the driver again.
  const wakes: string[] = [];
  const raise = world.app.host.client.raiseEvent.bind(world.app.host.client);
  world.app.host.client.raiseEvent = (instanceId, name, data) => {
    if (name === 'wake') wakes.push(instanceId);
    return raise(instanceId, name, data);
  };
  const one = await world.app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('one')] });
  expect(one.status).toBe(202);
  await world.app.advance(100);
  expect(wakes).toHaveLength(1);
  const two = await world.app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('two')] });
  expect(two.status).toBe(202);
  await world.app.advance(100);
  expect(wakes).toHaveLength(1);
  await world.app.advance(10_000);
  expect((await git(world.remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n')).toEqual(
    expect.arrayContaining([
      'clusters/prod/shop/configmaps/one.yaml',
      'clusters/prod/shop/configmaps/two.yaml',
    ]),
  );
});
