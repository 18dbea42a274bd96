// A window's deadline moves while the driver sleeps on the old one (a later change resets the idle
// timeout): the stale timer fires, finds nothing due and closes nothing; a change posted between
// the stale and the real deadline joins the same window, published in one commit at the real one.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { appOnNewRepository, git } from '../support/app/app-host';

const world = appOnNewRepository();

function change(name: string) {
  return {
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
  };
}

async function commits(): Promise<string[]> {
  const log = await git(world.remote, 'log', '--format=%H', 'main').catch(() => '');
  return log.trim() === '' ? [] : log.trim().split('\n');
}

it('given a deadline moved under a sleeping driver, closes the window once, at the real deadline, with the change posted between', async () => {
  const post = async (name: string) =>
    expect((await world.app.http('POST', '/api/v1/targets/prod/events', change(name))).status).toBe(202);
  await post('first'); // the window closes 5 s after its last change: at +5 s
  await world.app.advance(3000);
  await post('second'); // the deadline moves to +8 s; the driver may still sleep until +5 s
  await world.app.advance(3000); // +6 s: past the stale deadline
  expect(await commits()).toEqual([]);
  expect((await world.app.http('GET', '/api/v1/targets/prod')).body.window).toMatchObject({
    open: true,
    changes: 2,
  });
  await post('third'); // between the stale and the real deadline
  await world.app.advance(6000);

  const published = await commits();
  expect(published).toHaveLength(1);
  const files = await git(world.remote, 'show', '--name-only', '--format=', published[0]!);
  expect(files.trim().split('\n').sort()).toEqual(
    ['first', 'second', 'third'].map((name) => `clusters/prod/shop/configmaps/${name}.yaml`),
  );
});
