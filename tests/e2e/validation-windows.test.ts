// The seed's window and save rows that need Git or a restart, end to end: a timer that could fire
// twice or decisions replayed after a restart mid-window, a fresh snapshot right after an accepted
// save, and a change and a save arriving on independent paths. The app on the embedded host (virtual
// clock) publishing to a local bare repository.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, git, startAppHost } from '../support/app/app-host';
import { configMapEvent, history, writeTrailers } from '../support/app/branch-observations';

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-windows-')), 'state.git'));
  app = await startAppHost({
    repositories: [{ name: 'state', url: remote }],
    targets: [
      { name: 'prod', repository: 'state', branch: 'main', window: { idleTimeout: '5s', maxDuration: '1m' } },
    ],
    limits: { pushCooldown: '0s' },
    server: { auth: 'disabled' },
  });
});

afterAll(async () => {
  await app?.stop();
});

async function post(names: string[], username = 'alice'): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/prod/events', {
    events: names.map((name) => configMapEvent(name, username)),
  });
  expect(response.status).toBe(202);
}

async function filesOf(commit: string): Promise<string[]> {
  return (await git(remote, 'show', '--name-only', '--format=', commit)).split('\n').filter(Boolean);
}

async function saveStatus(id: string) {
  return (await app.http('GET', `/api/v1/targets/prod/saves/${id}`)).body;
}

describe('a restart of the host in the middle of a window', () => {
  it('given a window half way to its idle timeout, after the restart it closes once: one commit, each write once', async () => {
    const before = (await history(remote).catch(() => [])).length;
    await post(['restart-a', 'restart-b']);
    await app.advance(2000);
    await post(['restart-c']);
    await app.advance(2000);
    expect((await app.http('GET', '/api/v1/targets/prod')).body.window).toMatchObject({
      open: true,
      changes: 3,
    });
    await app.restart();
    await app.advance(30_000);

    const commits = await history(remote);
    expect(commits).toHaveLength(before + 1);
    expect(await filesOf(commits[0]!.sha)).toEqual([
      'shop/configmaps/restart-a.yaml',
      'shop/configmaps/restart-b.yaml',
      'shop/configmaps/restart-c.yaml',
    ]);
    const trailers = await writeTrailers(remote);
    expect(new Set(trailers).size).toBe(trailers.length);
    expect((await app.http('GET', '/api/v1/targets/prod')).body).toMatchObject({
      publication: { pendingWrites: 0, lastPush: { commit: commits[0]!.sha } },
      window: { open: false },
    });
  });
});

describe('a fresh snapshot right after an accepted save', () => {
  it("given a save attached to its author's window, a snapshot closes that window under the save's message and the save keeps its answer", async () => {
    await post(['saved-change']);
    await app.http('POST', '/api/v1/targets/prod/saves', {
      id: 'save-before-snapshot',
      message: 'Saved just before the resync',
      author: { username: 'alice' },
    });
    await app.advance(1000);
    expect(await saveStatus('save-before-snapshot')).toMatchObject({ phase: 'CollectingWindow' });
    const snapshot = await app.http('POST', '/api/v1/targets/prod/snapshots', {
      scope: { group: '', resource: 'configmaps', namespace: 'shop' },
      revision: '900',
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'saved-change', namespace: 'shop' },
          data: { v: '2' },
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'from-snapshot', namespace: 'shop' },
          data: { v: '1' },
        },
      ],
    });
    expect(snapshot.status).toBe(202);
    await app.advance(30_000);

    const commits = await history(remote);
    const saved = commits.find((commit) => commit.subject === 'Saved just before the resync');
    expect(saved).toBeDefined();
    expect(await filesOf(saved!.sha)).toEqual(['shop/configmaps/saved-change.yaml']);
    expect(await saveStatus('save-before-snapshot')).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: saved!.sha,
    });
    // The snapshot is decided after the save's window: it is published above the save's commit.
    expect(commits[0]!.sha).not.toBe(saved!.sha);
    await git(remote, 'merge-base', '--is-ancestor', saved!.sha, 'main');
    expect(await git(remote, 'show', 'main:shop/configmaps/from-snapshot.yaml')).toContain('v: "1"');
    expect(await git(remote, 'show', 'main:shop/configmaps/saved-change.yaml')).toContain('v: "2"');
  });
});

describe('a change and a save arriving on independent paths', () => {
  it.each([
    ['the change first', 'change-first'],
    ['the save first', 'save-first'],
    ['both at once', 'both-at-once'],
  ])(
    'given %s, the save attaches to the author’s window within its attach timeout and commits the change',
    async (_label, name) => {
      const username = `author-${name}`;
      const change = () => post([name], username);
      const save = async () => {
        const response = await app.http('POST', '/api/v1/targets/prod/saves', {
          id: `save-${name}`,
          message: `Save of ${name}`,
          author: { username },
          window: { attach: 'CurrentOrNext', attachTimeout: '2s' },
        });
        expect(response.status).toBe(202);
      };
      if (name === 'change-first') {
        await change();
        await save();
      } else if (name === 'save-first') {
        await save();
        await change();
      } else {
        await Promise.all([change(), save()]);
      }
      await app.advance(30_000);

      const saved = (await history(remote)).find((commit) => commit.subject === `Save of ${name}`);
      expect(saved).toBeDefined();
      expect(await filesOf(saved!.sha)).toEqual([`shop/configmaps/${name}.yaml`]);
      expect(await saveStatus(`save-${name}`)).toMatchObject({ outcome: 'Committed', commit: saved!.sha });
    },
  );
});
