// Saves (commit requests) end to end on the embedded host: each outcome of the contract.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
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
let nextVersion = 100;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-saves-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({ url: remote, target: { path: '.' }, limits: { pushCooldown: '0s' } }),
  );
});

afterAll(async () => {
  await app?.stop();
});

async function change(username: string, name: string) {
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion: String(nextVersion++) },
    data: { at: String(app.now()) },
  };
  const response = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [{ type: 'MODIFIED', resource: 'configmaps', object, author: { username } }],
  });
  expect(response.status).toBe(202);
}

async function save(body: object) {
  return app.http('POST', '/api/v1/targets/prod/saves', body);
}

async function saveStatus(id: string) {
  return app.http('GET', `/api/v1/targets/prod/saves/${id}`);
}

async function commitWithMessage(message: string): Promise<string> {
  const log = await git(remote, 'log', '--format=%H|%s', 'main');
  const line = log.split('\n').find((entry) => entry.endsWith(`|${message}`));
  if (!line) throw new Error(`no commit "${message}" in\n${log}`);
  return line.split('|')[0]!;
}

describe('a save with a message', () => {
  it("attaches to its author's open window and resolves Committed with its own commit", async () => {
    await change('alice', 'one');
    const registered = await save({
      id: 'save-1',
      message: 'Scale the shop for the sale',
      author: { username: 'alice' },
    });
    expect(registered).toMatchObject({
      status: 202,
      body: { id: 'save-1', status: '/api/v1/targets/prod/saves/save-1' },
    });
    await app.advance(1000);
    expect((await saveStatus('save-1')).body).toMatchObject({ phase: 'CollectingWindow' });
    await app.advance(10_000);

    const commit = await commitWithMessage('Scale the shop for the sale');
    const status = await saveStatus('save-1');
    expect(status).toMatchObject({
      status: 200,
      body: { id: 'save-1', target: 'prod', branch: 'main', phase: 'Resolved', outcome: 'Committed', commit },
    });
    expect(status.body.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'True' })]),
    );
  });

  it('answers a repeated registration with the recorded outcome and restarts nothing', async () => {
    const before = await git(remote, 'rev-parse', 'main');
    expect(
      (await save({ id: 'save-1', message: 'Scale the shop for the sale', author: { username: 'alice' } }))
        .status,
    ).toBe(202);
    await app.advance(10_000);
    expect(await git(remote, 'rev-parse', 'main')).toBe(before);
    expect((await saveStatus('save-1')).body).toMatchObject({ phase: 'Resolved', outcome: 'Committed' });
  });
});

describe('attach Next', () => {
  it('closes the open window under its own message first, then takes the next one', async () => {
    await change('carol', 'two');
    await save({
      id: 'save-next',
      message: "Carol's next change",
      author: { username: 'carol' },
      window: { attach: 'Next', attachTimeout: '30s' },
    });
    await app.advance(2000);
    const closed = await git(remote, 'log', '-1', '--format=%s', 'main');
    expect(closed.trim()).toBe('[UPDATE] v1/configmaps default/two');
    expect((await saveStatus('save-next')).body).toMatchObject({ phase: 'WaitingForWindow' });

    await change('carol', 'three');
    await app.advance(10_000);
    const commit = await commitWithMessage("Carol's next change");
    expect(await git(remote, 'show', '--name-only', '--format=', commit)).toBe(
      'default/configmaps/three.yaml\n',
    );
    expect((await saveStatus('save-next')).body).toMatchObject({ outcome: 'Committed', commit });
  });
});

describe('a save with nothing to commit', () => {
  it('makes an empty commit with its message when it asks for CommitEmpty', async () => {
    const tree = await git(remote, 'rev-parse', 'main^{tree}');
    await save({
      id: 'save-empty',
      message: 'Release 2026.11 recorded',
      author: { username: 'dave' },
      whenNothingToCommit: 'CommitEmpty',
      window: { attachTimeout: '2s' },
    });
    await app.advance(10_000);
    const commit = await commitWithMessage('Release 2026.11 recorded');
    expect(await git(remote, 'rev-parse', `${commit}^{tree}`)).toBe(tree);
    expect((await saveStatus('save-empty')).body).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit,
    });
  });

  it('resolves NoWindow when no window of its author came', async () => {
    const before = await git(remote, 'rev-parse', 'main');
    await save({
      id: 'save-none',
      message: 'Nothing happened',
      author: { username: 'erin' },
      window: { attachTimeout: '2s' },
    });
    await app.advance(10_000);
    expect(await git(remote, 'rev-parse', 'main')).toBe(before);
    expect((await saveStatus('save-none')).body).toMatchObject({ phase: 'Resolved', outcome: 'NoWindow' });
  });

  it("resolves WindowMismatch when only another author's window was open", async () => {
    await change('frank', 'four');
    await save({
      id: 'save-mismatch',
      message: 'Grace saves',
      author: { username: 'grace' },
      window: { attachTimeout: '2s' },
    });
    await app.advance(10_000);
    const status = (await saveStatus('save-mismatch')).body;
    expect(status).toMatchObject({ phase: 'Resolved', outcome: 'WindowMismatch' });
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'Ready',
          status: 'False',
          reason: 'WindowMismatch',
          message: expect.stringContaining('Send the save with that author'),
        }),
      ]),
    );
  });
});

describe('a save without an author', () => {
  it("takes the author of the target's open window and commits that window's changes", async () => {
    await change('heidi', 'five');
    await save({ id: 'save-no-author', message: 'Heidi tunes five', window: { attachTimeout: '2s' } });
    await app.advance(10_000);
    const commit = await commitWithMessage('Heidi tunes five');
    expect((await git(remote, 'log', '-1', '--format=%an', commit)).trim()).toBe('heidi');
    expect((await saveStatus('save-no-author')).body).toMatchObject({ outcome: 'Committed', commit });
  });
});

describe('withdrawing a save', () => {
  it('withdraws a save that is only waiting (200) and keeps it withdrawn', async () => {
    await save({
      id: 'save-withdrawn',
      message: 'Never mind',
      author: { username: 'heidi' },
      window: { attachTimeout: '30s' },
    });
    await app.advance(1000);
    const withdrawn = await app.http('DELETE', '/api/v1/targets/prod/saves/save-withdrawn');
    expect(withdrawn).toMatchObject({ status: 200, body: { outcome: 'Withdrawn' } });
    await change('heidi', 'five');
    await app.advance(10_000);
    expect((await saveStatus('save-withdrawn')).body).toMatchObject({
      phase: 'Resolved',
      outcome: 'Withdrawn',
    });
    expect(await git(remote, 'log', '--format=%s', 'main')).not.toContain('Never mind');
  });

  it('refuses to withdraw an attached save (409) and still commits it', async () => {
    await change('ivan', 'six');
    await save({ id: 'save-held', message: 'Ivan keeps this', author: { username: 'ivan' } });
    await app.advance(1000);
    const refused = await app.http('DELETE', '/api/v1/targets/prod/saves/save-held');
    expect(refused).toMatchObject({ status: 409, body: { error: 'save-held', phase: 'CollectingWindow' } });
    await app.advance(10_000);
    const commit = await commitWithMessage('Ivan keeps this');
    expect((await saveStatus('save-held')).body).toMatchObject({ outcome: 'Committed', commit });
  });

  it('stops a late registration of an id withdrawn before it arrived', async () => {
    expect((await app.http('DELETE', '/api/v1/targets/prod/saves/save-late')).status).toBe(200);
    await change('judy', 'seven');
    await save({ id: 'save-late', message: 'Too late', author: { username: 'judy' } });
    await app.advance(10_000);
    expect(await git(remote, 'log', '--format=%s', 'main')).not.toContain('Too late');
    expect((await saveStatus('save-late')).body).toMatchObject({ outcome: 'Withdrawn' });
  });
});

describe('reading a save', () => {
  it('answers 404 for an unknown save', async () => {
    expect(await saveStatus('never-registered')).toMatchObject({
      status: 404,
      body: { error: 'save-not-found' },
    });
  });
});

describe('the target status', () => {
  it('shows a local repository folder named state.git as configured, .git included', async () => {
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(remote.endsWith('/state.git')).toBe(true);
    expect(status.body).toMatchObject({ target: 'prod', repository: remote });
  });
});
