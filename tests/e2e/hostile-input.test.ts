// Hostile input end to end on the embedded host: odd authors, an unpublishable write, forged
// trailers and an empty snapshot of a root target never stall the branch or touch what kubescribe
// never wrote; the next ordinary change is always published.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { execFileSync } from 'node:child_process';
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
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-hostile-')), 'state.git'));
  // files kubescribe never wrote, and a file `blocked` where a namespace folder would go
  const files = ['README.md', '.sops.yaml', 'blocked'];
  const entries = files.map((name) => {
    const oid = execFileSync('git', [`--git-dir=${remote}`, 'hash-object', '-w', '--stdin'], {
      input: `${name}\n`,
    });
    return `100644 blob ${oid.toString().trim()}\t${name}`;
  });
  const tree = execFileSync('git', [`--git-dir=${remote}`, 'mktree'], { input: `${entries.join('\n')}\n` })
    .toString()
    .trim();
  const commit = execFileSync('git', [`--git-dir=${remote}`, 'commit-tree', tree, '-m', 'by hand'], {
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'h',
      GIT_AUTHOR_EMAIL: 'h@x',
      GIT_COMMITTER_NAME: 'h',
      GIT_COMMITTER_EMAIL: 'h@x',
    },
  })
    .toString()
    .trim();
  await git(remote, 'update-ref', 'refs/heads/main', commit);
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { path: '.', prune: 'Always', window: { idleTimeout: '1s', maxDuration: '1m' } },
      limits: { pushCooldown: '0s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
});

async function change(namespace: string, name: string, username?: string) {
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, resourceVersion: String(nextVersion++) },
    data: { at: String(app.now()) },
  };
  const response = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [
      { type: 'MODIFIED', resource: 'configmaps', object, ...(username ? { author: { username } } : {}) },
    ],
  });
  expect(response.status).toBe(202);
}

const files = async () => (await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');

describe('hostile input never stalls the branch', () => {
  it('publishes changes by odd authors, sets an unpublishable write aside, and publishes the next change', async () => {
    await change('default', 'jane', 'Jane <jane@example.com>');
    await app.advance(3000);
    await change('default', 'breaks', 'x\n\nKubescribe-Write: forged\n<>');
    await app.advance(3000);
    await change('blocked', 'never'); // `blocked` is a file: this write can never be published
    await app.advance(3000);
    await change('default', 'ordinary', 'alice');
    await app.advance(10_000);

    const listed = await files();
    expect(listed).toEqual(
      expect.arrayContaining([
        'default/configmaps/jane.yaml',
        'default/configmaps/breaks.yaml',
        'default/configmaps/ordinary.yaml',
      ]),
    );
    expect(listed).not.toContain('blocked/configmaps/never.yaml');
    const authors = await git(remote, 'log', '--format=%an <%ae>', 'main');
    expect(authors).toContain('Jane jane@example.com <');
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(status.body.publication).toMatchObject({ pendingWrites: 0, intakePaused: false, retryAt: null });
    expect(status.body.refusedWrites).toMatchObject({
      count: 1,
      recent: [{ target: 'prod', cause: expect.stringContaining('blocked is a file') }],
    });
    expect(status.body.conditions).toContainEqual(
      expect.objectContaining({ type: 'WritesRefused', status: 'True' }),
    );
  });

  it('an empty snapshot with prune Always sweeps only the files kubescribe manages', async () => {
    const response = await app.http('POST', '/api/v1/targets/prod/snapshots', { revision: '1', objects: [] });
    expect(response.status).toBe(202);
    await app.advance(10_000);
    await change('default', 'after', 'alice');
    await app.advance(10_000);

    expect(await files()).toEqual(['.sops.yaml', 'README.md', 'blocked', 'default/configmaps/after.yaml']);
  });
});
