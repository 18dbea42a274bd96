// A driver that is gone (failed after a deployment, or terminated) is restarted without waiting
// for traffic: held work is published although no cluster posts again.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { driverInstanceId } from '../../shared/app/runtime/durable-names';
import { appOnNewRepository, git } from '../support/app/app-host';

const world = appOnNewRepository();

const change = {
  type: 'ADDED',
  resource: 'configmaps',
  object: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kept', namespace: 'shop' },
    data: { a: '1' },
  },
};

it('given a terminated driver and a window of held changes, publishes them within a minute, with no request', async () => {
  // The keeper runs at each minute: start far enough from the next one to see the driver stay gone.
  const toNextMinute = 60_000 - (world.app.now() % 60_000);
  if (toNextMinute < 15_000) await world.app.advance(toNextMinute + 1000);
  const posted = await world.app.http('POST', '/api/v1/targets/prod/events', { events: [change] });
  expect(posted.status).toBe(202);
  const instanceId = driverInstanceId(posted.body.branch);
  expect(world.app.host.client.terminate(instanceId, 'a failed deployment, as a test')).toBe('accepted');
  await world.app.advance(1000);
  expect(world.app.host.client.getStatus(instanceId)).toMatchObject({ runtimeStatus: 'Terminated' });

  await world.app.advance(10_000);
  const heads = await git(world.remote, 'for-each-ref', 'refs/heads');
  expect(heads).toBe('');

  await world.app.advance(60_000);
  expect(world.app.host.client.getStatus(instanceId)).toMatchObject({ runtimeStatus: 'Running' });
  const files = await git(world.remote, 'ls-tree', '-r', '--name-only', 'main');
  expect(files.trim()).toBe('clusters/prod/shop/configmaps/kept.yaml');
  expect(world.app.logs.some((line) => JSON.stringify(line).includes('its driver was not running'))).toBe(
    true,
  );
});
