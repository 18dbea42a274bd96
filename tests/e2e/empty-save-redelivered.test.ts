// H8 of the HA fault table (docs/architecture.md, "What survives what"): an empty save
// (`whenNothingToCommit: CommitEmpty`) sent again after its empty commit landed, later than the
// 15 minutes other saves' receipts are kept. An empty commit cannot be told from a second one by its
// tree, so the redelivery must answer the original commit, not commit again. The app on the
// embedded host with a virtual clock, a local bare repository.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { history } from '../support/app/branch-observations';
import { createBareRepo } from '../support/git/create-bare-repo';

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepo({
    root: mkdtempSync(`${tmpdir()}/ks-empty-save-`),
    name: 'state.git',
    files: { 'README.md': 'state\n' },
  });
  app = await startAppHost(
    oneTargetConfig({ url: remote, target: { path: '.' }, limits: { pushCooldown: '0s' } }),
  );
});

afterAll(async () => {
  await app?.stop();
});

const freeze = {
  id: 'freeze-2026-12',
  message: 'Start the December freeze',
  author: { username: 'bob' },
  window: { attachTimeout: '0s' },
  whenNothingToCommit: 'CommitEmpty',
};

const freezeCommits = async () =>
  (await history(remote)).filter((commit) => commit.subject === freeze.message).map((commit) => commit.sha);

it('given an empty save sent again 20 minutes after its commit, answers the original commit and commits nothing', async () => {
  expect((await app.http('POST', '/api/v1/targets/prod/saves', freeze)).status).toBe(202);
  await app.advance(2000);
  const [original] = await freezeCommits();
  expect(await git(remote, 'rev-parse', `${original}^{tree}`)).toBe(
    await git(remote, 'rev-parse', `${original}^^{tree}`),
  );
  expect((await app.http('GET', `/api/v1/targets/prod/saves/${freeze.id}`)).body).toMatchObject({
    phase: 'Resolved',
    outcome: 'Committed',
    commit: original,
  });

  // past the receipt retention of a save that cannot commit empty (15 minutes)
  await app.advance(20 * 60_000);
  expect((await app.http('POST', '/api/v1/targets/prod/saves', freeze)).status).toBe(202);
  await app.advance(5000);
  expect((await app.http('GET', `/api/v1/targets/prod/saves/${freeze.id}`)).body).toMatchObject({
    phase: 'Resolved',
    outcome: 'Committed',
    commit: original,
  });
  expect(await freezeCommits()).toEqual([original]);
});
