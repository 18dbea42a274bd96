// A window's deadline moves while the driver sleeps on the old one (a later change resets the idle
// timeout): the stale timer fires, finds nothing due and closes nothing; a change posted between
// the stale and the real deadline joins the same window, published in one commit at the real one.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'kubescribe-timer-')), 'state.git'));
  app = await startAppHost(oneTargetConfig({ url: remote }));
});

afterAll(async () => {
  await app?.stop();
  rmSync(join(remote, '..'), { recursive: true, force: true });
});

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
  const log = await git(remote, 'log', '--format=%H', 'main').catch(() => '');
  return log.trim() === '' ? [] : log.trim().split('\n');
}

it('given a deadline moved under a sleeping driver, closes the window once, at the real deadline, with the change posted between', async () => {
  const post = async (name: string) =>
    expect((await app.http('POST', '/api/v1/targets/prod/events', change(name))).status).toBe(202);
  await post('first'); // the window closes 5 s after its last change: at +5 s
  await app.advance(3000);
  await post('second'); // the deadline moves to +8 s; the driver may still sleep until +5 s
  await app.advance(3000); // +6 s: past the stale deadline
  expect(await commits()).toEqual([]);
  expect((await app.http('GET', '/api/v1/targets/prod')).body.window).toMatchObject({
    open: true,
    changes: 2,
  });
  await post('third'); // between the stale and the real deadline
  await app.advance(6000);

  const published = await commits();
  expect(published).toHaveLength(1);
  const files = await git(remote, 'show', '--name-only', '--format=', published[0]!);
  expect(files.trim().split('\n').sort()).toEqual(
    ['first', 'second', 'third'].map((name) => `clusters/prod/shop/configmaps/${name}.yaml`),
  );
});
