// A branch keeps every part of a snapshot sent in pieces until it is published, in durable state
// that must stay under 1 MB: a part over the limits is refused before anything of it is stored.
// Small limits stand in for the defaults (1,000 and 2,000): 2 parts a snapshot, and 27 a branch,
// room for 3 snapshots of one part (each snapshot counts 8 parts more for its own record).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { branchKeyFor } from '../../shared/app/runtime/branch-key';
import { BRANCH_ENTITY } from '../../shared/app/runtime/durable-names';
import { appOnNewRepository, git, oneTargetConfig } from '../support/app/app-host';

const world = appOnNewRepository((url) =>
  oneTargetConfig({ url, limits: { snapshotParts: 2, branchSnapshotParts: 27, pushCooldown: '0s' } }),
);

const configMap = (name: string) => ({
  resource: 'configmaps',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { name } },
});

/** Posts a part of one ConfigMap, then lets the branch apply it (and the admission cache expire). */
async function postPart(snapshotId: string, name: string) {
  const answer = await world.app.http('POST', `/api/v1/targets/prod/snapshots/${snapshotId}/parts`, {
    objects: [configMap(name)],
  });
  await world.app.advance(1000);
  return answer;
}

const complete = (snapshotId: string, parts: number) =>
  world.app.http('POST', `/api/v1/targets/prod/snapshots/${snapshotId}/complete`, {
    scope: { group: '', resource: 'configmaps', namespace: 'shop' },
    revision: '100',
    parts,
  });

/** Every payload file the app has stored. */
function storedPayloads(): string[] {
  const root = join(world.app.dataDir, 'payloads', 'sha256');
  return readdirSync(root).flatMap((folder) => readdirSync(join(root, folder)));
}

const branchState = () =>
  world.app.host.client.readEntityState(BRANCH_ENTITY, branchKeyFor(world.remote, 'main').key);

const files = async () =>
  (await git(world.remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n').sort();

it('refuses a part beyond the most one snapshot may have with 409, storing and keeping nothing of it', async () => {
  expect((await postPart('big', 'one')).status).toBe(202);
  expect((await postPart('big', 'two')).status).toBe(202);
  const payloads = storedPayloads();
  const state = branchState();

  const refused = await postPart('big', 'three');
  expect(refused).toMatchObject({
    status: 409,
    body: {
      error: 'too-many-parts',
      message: expect.stringMatching(/already has 2 parts.*fewer, larger parts/),
    },
  });
  expect(storedPayloads()).toEqual(payloads);
  expect(branchState()).toEqual(state);

  // The same part sent again is no new part: still taken.
  expect((await postPart('big', 'two')).status).toBe(202);
  // A completion naming more parts than a snapshot may have could never apply: refused.
  expect(await complete('big', 3)).toMatchObject({ status: 400, body: { error: 'invalid-input' } });

  expect((await complete('big', 2)).status).toBe(202);
  await world.app.advance(10_000);
  expect(await files()).toEqual([
    'clusters/prod/shop/configmaps/one.yaml',
    'clusters/prod/shop/configmaps/two.yaml',
  ]);
});

it('answers 429 with Retry-After while the branch keeps the most parts it may, until their snapshots publish', async () => {
  for (const id of ['a', 'b', 'c']) expect((await postPart(id, `part-${id}`)).status).toBe(202);
  const payloads = storedPayloads();
  const state = branchState();

  const paused = await postPart('d', 'part-d');
  expect(paused.status).toBe(429);
  expect(paused.body).toMatchObject({
    error: 'intake-paused',
    message: expect.stringMatching(/keeps 3 parts in 3 snapshots not yet published/),
  });
  expect(paused.headers.get('retry-after')).toBe('5');
  expect(storedPayloads()).toEqual(payloads);
  expect(branchState()).toEqual(state);
  // A part the branch already keeps, sent again, is still taken.
  expect((await postPart('a', 'part-a')).status).toBe(202);

  for (const id of ['a', 'b', 'c']) expect((await complete(id, 1)).status).toBe(202);
  await world.app.advance(10_000);
  expect((await postPart('d', 'part-d')).status).toBe(202);
});
