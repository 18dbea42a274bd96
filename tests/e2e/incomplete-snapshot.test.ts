// H9 of the HA fault table (docs/architecture.md, "What survives what"): a snapshot in parts whose
// completion never comes in time. Upstream's rule (snapshot delivery: "sweep only after the complete
// marker; an incomplete snapshot never authorizes deletion"): its parts are forgotten an hour after
// the first one, and a completion that arrives after that applies nothing, so nothing the snapshot
// left out is deleted. `prune: Always` is set so that a snapshot that did apply would sweep. The app
// on the embedded host with a virtual clock, a local bare repository.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { configMapEvent, filesOn } from '../support/app/branch-observations';
import { createBareRepo } from '../support/git/create-bare-repo';

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepo({
    root: mkdtempSync(`${tmpdir()}/ks-incomplete-`),
    name: 'state.git',
    files: { 'README.md': 'state\n' },
  });
  app = await startAppHost(
    oneTargetConfig({ url: remote, target: { path: '.', prune: 'Always' }, limits: { pushCooldown: '0s' } }),
  );
});

afterAll(async () => {
  await app?.stop();
});

const configMap = (name: string) => ({ resource: 'configmaps', object: configMapEvent(name).object });

it('given a snapshot whose completion comes after its parts were forgotten, applies nothing and deletes nothing', async () => {
  const posted = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [configMapEvent('keep'), configMapEvent('left-out')],
  });
  expect(posted.status).toBe(202);
  await app.advance(10_000);
  expect(await filesOn(remote)).toEqual(
    expect.arrayContaining(['shop/configmaps/keep.yaml', 'shop/configmaps/left-out.yaml']),
  );
  const head = await git(remote, 'rev-parse', 'main');

  // the only part leaves `left-out` out; its completion is sent an hour and a minute later
  const part = await app.http('POST', '/api/v1/targets/prod/snapshots/resync-1/parts', {
    objects: [configMap('keep')],
  });
  expect(part.status).toBe(202);
  await app.advance(61 * 60_000);
  const complete = await app.http('POST', '/api/v1/targets/prod/snapshots/resync-1/complete', {
    revision: '900',
    scope: { group: '', resource: 'configmaps', namespace: 'shop' },
    parts: 1,
  });
  expect(complete.status).toBe(202);
  await app.advance(10_000);

  expect(await git(remote, 'rev-parse', 'main')).toBe(head);
  expect(await filesOn(remote)).toContain('shop/configmaps/left-out.yaml');
});
