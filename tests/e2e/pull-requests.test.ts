// The pull-request mode end to end: the app on the embedded host (virtual clock) publishes a
// propose target's commits to its own branch on a real `git http-backend` and opens, updates and
// follows one pull request on an emulator of each host's REST API (GitHub, Azure Repos, GitLab,
// Gitea; tests/support/forges, each emulator citing its host's documentation). A person's merge is
// a merge commit on the base, as the host makes it, and the emulator's `merge`; a close is the
// emulator's `close`.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, startAppHost } from '../support/app/app-host';
import { commitAsAnotherWriter, configMapEvent, filesOn } from '../support/app/branch-observations';
import { startAzureReposEmulator } from '../support/forges/azure-repos-emulator';
import { startGiteaEmulator } from '../support/forges/gitea-emulator';
import { startGitHubEmulator } from '../support/forges/github-emulator';
import { startGitLabEmulator } from '../support/forges/gitlab-emulator';
import type { PullControls } from '../support/forges/pull-store';
import { newSshSigningKit, type SigningKit } from '../support/git/signing-keys';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

const TOKEN = 'ghp_e2e-token-0123456789abcdef';
const PROPOSED = 'kubescribe/prod';
const POLL_MS = 5_000;

type Emulator = PullControls & { url: string; stop(): Promise<void> };

/**
 * Each host as a repository on it is configured: where git serves the repository (its path is the
 * host's URL form, which says where the repository is on the host's API) and the API's base URL.
 */
const HOSTS: {
  kind: 'github' | 'azure-repos' | 'gitlab' | 'gitea';
  repositoryPath: string;
  start: (options: { token: string }) => Promise<Emulator>;
  apiUrl: (emulator: string) => string;
}[] = [
  { kind: 'github', repositoryPath: 'org/state.git', start: startGitHubEmulator, apiUrl: (url) => url },
  {
    kind: 'azure-repos',
    repositoryPath: 'org/project/_git/state',
    start: startAzureReposEmulator,
    apiUrl: (url) => `${url}/org`,
  },
  {
    kind: 'gitlab',
    repositoryPath: 'group/state.git',
    start: startGitLabEmulator,
    apiUrl: (url) => `${url}/api/v4`,
  },
  {
    kind: 'gitea',
    repositoryPath: 'org/state.git',
    start: startGiteaEmulator,
    apiUrl: (url) => `${url}/api/v1`,
  },
];

let app: AppHost;
let served: ProxiedRemote;
let host: Emulator;
let kit: SigningKit;

async function startWith(kind: (typeof HOSTS)[number]): Promise<void> {
  served = await startProxiedRemote({ name: kind.repositoryPath });
  host = await kind.start({ token: TOKEN });
  kit = newSshSigningKit('ed25519');
  app = await startAppHost(
    {
      repositories: [
        {
          name: 'state',
          url: served.url,
          auth: { username: 'x-access-token', tokenEnv: 'GIT_TOKEN' },
          forge: { kind: kind.kind, apiUrl: kind.apiUrl(host.url) },
          committer: kit.committer,
          signing: { format: 'ssh', keyEnv: 'SIGNING_KEY' },
        },
      ],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: 'clusters/prod',
          publish: 'propose',
          window: { idleTimeout: '1s', maxDuration: '5s' },
        },
      ],
      limits: { gitCallTimeout: '5s', publishTimeout: '30s', pushCooldown: '0s', pullRequestPoll: '5s' },
      server: { auth: 'disabled' },
    },
    { GIT_TOKEN: TOKEN, SIGNING_KEY: kit.privateKey },
  );
}

async function stopAll(): Promise<void> {
  await app?.stop();
  await host?.stop();
  await served?.stop();
  kit?.cleanup();
}

/** A change of ConfigMap `name` by `username`, with a save of its window when `save` is given. */
async function change(name: string, username: string, save?: string): Promise<void> {
  const response = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [configMapEvent(name, username)],
  });
  expect(response.status).toBe(202);
  if (save) {
    const saved = await app.http('POST', '/api/v1/targets/prod/saves', {
      id: save,
      message: `Save ${name}`,
      author: { username },
    });
    expect(saved.status).toBe(202);
  }
}

async function saveOf(id: string) {
  const answer = await app.http('GET', `/api/v1/targets/prod/saves/${id}`);
  expect(answer.status).toBe(200);
  return answer.body as {
    phase: string;
    outcome?: string;
    commit?: string;
    pullRequest?: { number: number; url: string };
  };
}

async function pullRequestOfTarget() {
  return (await app.http('GET', '/api/v1/targets/prod')).body as {
    proposeBranch: string;
    pullRequest: {
      open: { number: number; url: string; state: string } | null;
      ended: { number: number; state: string } | null;
    };
  };
}

const rev = (ref: string) => git(served.remote, 'rev-parse', ref);

/** What a person's merge on the host does: a merge commit of the proposed branch on the base. */
async function mergeOnHost(number: number): Promise<string> {
  const tree = (await git(served.remote, 'rev-parse', `${PROPOSED}^{tree}`)).trim();
  const merge = (
    await git(
      served.remote,
      'commit-tree',
      tree,
      '-p',
      'main',
      '-p',
      PROPOSED,
      '-m',
      `Merge pull request #${number}`,
    )
  ).trim();
  await git(served.remote, 'update-ref', 'refs/heads/main', merge);
  host.merge(number, merge);
  return merge;
}

describe.each(HOSTS)('a target that proposes its changes on $kind', (kind) => {
  beforeAll(() => startWith(kind));
  afterAll(stopAll);

  it('a window becomes a pull request from kubescribe/prod into main, and its save answers Proposed with the URL', async () => {
    const mainBefore = await rev('main');
    await change('web', 'alice', 'save-web');
    await app.advance(5000);

    expect((await rev('main')).trim()).toBe(mainBefore.trim());
    expect(await filesOn(served.remote, PROPOSED)).toContain('clusters/prod/shop/configmaps/web.yaml');
    const pulls = host.pulls();
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ head: PROPOSED, base: 'main', state: 'open' });
    expect(pulls[0]?.title).toContain('prod');
    expect(pulls[0]?.description).toContain('`clusters/prod/shop/configmaps/web.yaml` by alice');
    const save = await saveOf('save-web');
    expect(save).toMatchObject({ phase: 'Proposed', pullRequest: { number: pulls[0]?.number } });
    expect(save.pullRequest?.url).toMatch(new RegExp(`^https?://.+/${pulls[0]?.number}$`));
    expect(save.outcome).toBeUndefined();
    expect((await pullRequestOfTarget()).pullRequest.open).toEqual({ ...save.pullRequest, state: 'open' });
    const listed = (await app.http('GET', '/api/v1/targets')).body as {
      targets: { pullRequest?: unknown }[];
    };
    expect(listed.targets[0]?.pullRequest).toEqual({ ...save.pullRequest, state: 'open' });
  });

  it('more changes update the same pull request', async () => {
    await change('api', 'bob', 'save-api');
    await app.advance(5000);

    const pulls = host.pulls();
    expect(pulls).toHaveLength(1);
    expect(pulls[0]?.description).toContain('`clusters/prod/shop/configmaps/api.yaml` by bob');
    expect(pulls[0]?.description).toContain('web.yaml` by alice');
    expect(await saveOf('save-api')).toMatchObject({
      phase: 'Proposed',
      pullRequest: { number: pulls[0]?.number },
    });
  });

  it('a merge resolves the saves with the merge commit; the next change opens a new pull request from a branch started on main', async () => {
    const first = host.pulls()[0]!.number;
    const merge = await mergeOnHost(first);
    await app.advance(POLL_MS + 1000);

    expect(await saveOf('save-web')).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: merge,
    });
    expect(await saveOf('save-api')).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: merge,
    });
    expect((await pullRequestOfTarget()).pullRequest).toMatchObject({
      open: null,
      ended: { number: first, state: 'merged' },
    });

    await change('db', 'carol');
    await app.advance(5000);
    expect((await rev(`${PROPOSED}~1`)).trim()).toBe(merge);
    const pulls = host.pulls();
    expect(pulls).toHaveLength(2);
    expect(pulls[1]).toMatchObject({ head: PROPOSED, base: 'main', state: 'open' });
    expect(pulls[1]?.number).not.toBe(first);
    // the new pull request proposes only what came after the merge
    expect(pulls[1]?.description).toContain('db.yaml` by carol');
    expect(pulls[1]?.description).not.toContain('web.yaml');
  });

  it('a close without merge resolves its saves PullRequestClosed; the next change opens a new one on a branch started again from main', async () => {
    await change('cache', 'dave', 'save-cache');
    await app.advance(5000);
    const second = host.pulls()[1]!.number;
    expect(await saveOf('save-cache')).toMatchObject({ phase: 'Proposed', pullRequest: { number: second } });
    host.close(second);
    await app.advance(POLL_MS + 1000);
    expect(await saveOf('save-cache')).toMatchObject({ phase: 'Resolved', outcome: 'PullRequestClosed' });

    await change('queue', 'erin');
    await app.advance(5000);
    const pulls = host.pulls();
    expect(pulls.map((pull) => pull.state)).toEqual(['merged', 'closed', 'open']);
    expect(pulls[2]).toMatchObject({ head: PROPOSED, base: 'main' });
    // the closed pull request's commits are not on the new branch: main plus the new change
    expect((await rev(`${PROPOSED}~1`)).trim()).toBe((await rev('main')).trim());
    const files = await filesOn(served.remote, PROPOSED);
    expect(files).toContain('clusters/prod/shop/configmaps/queue.yaml');
    expect(files).not.toContain('clusters/prod/shop/configmaps/cache.yaml');
  });

  it("a base that moves under the open pull request: the next change replays the branch's own commits on the new base, in the same pull request", async () => {
    const theirs = (
      await commitAsAnotherWriter(
        served.remote,
        'main',
        { 'docs/runbook.md': 'page the on-call\n' },
        'Runbook',
      )
    ).trim();
    await change('search', 'frank');
    await app.advance(5000);

    await git(served.remote, 'merge-base', '--is-ancestor', theirs, PROPOSED);
    const own = (await git(served.remote, 'log', '--format=%s', `main..${PROPOSED}`)).trim().split('\n');
    expect(own).toHaveLength(2); // queue's commit, replayed, and search's
    const files = await filesOn(served.remote, PROPOSED);
    expect(files).toEqual(
      expect.arrayContaining([
        'docs/runbook.md',
        'clusters/prod/shop/configmaps/queue.yaml',
        'clusters/prod/shop/configmaps/search.yaml',
      ]),
    );
    const pulls = host.pulls();
    expect(pulls.map((pull) => pull.state)).toEqual(['merged', 'closed', 'open']);
    expect(pulls[2]?.description).toContain('search.yaml` by frank');
    // the replayed commit is signed again: git verify-commit verifies every commit proposed
    for (const sha of (await git(served.remote, 'rev-list', `main..${PROPOSED}`)).trim().split('\n')) {
      expect({ sha, verified: (await kit.verify(served.remote, sha)).verified }).toEqual({
        sha,
        verified: true,
      });
    }
  });

  it('the token and the signing key are nowhere in the logs', () => {
    expect(JSON.stringify(app.logs)).not.toContain(TOKEN);
    expect(JSON.stringify(app.logs)).not.toContain(kit.privateKey.split('\n')[1]);
  });
});
