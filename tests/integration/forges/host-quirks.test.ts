/**
 * What each host does its own way, through its emulator: how it takes the repository's token, its
 * filters and paging, and the answers it refuses with (GitHub's rate limit, Azure DevOps' sign-in
 * page). Each emulator cites the documentation it models.
 */
import { fixedCredentials } from '../../../shared/git/credentials';
import { type ForgeKind, openForge } from '../../../shared/git/forges/forge';
import { ForgeAnswerUnreadable, forgeFailure } from '../../../shared/git/forges/forge-errors';
import type { GitAuth } from '../../../shared/git/types';
import { startAzureReposEmulator } from '../../support/forges/azure-repos-emulator';
import { startGiteaEmulator } from '../../support/forges/gitea-emulator';
import { startGitHubEmulator } from '../../support/forges/github-emulator';
import { startGitLabEmulator } from '../../support/forges/gitlab-emulator';
import type { Emulator } from './hosts';

const TEXT = { title: 't', description: 'd' };
const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.stop()));
});
async function track<E extends Emulator>(emulator: Promise<E>): Promise<E> {
  started.push(await emulator);
  return started.at(-1) as E;
}
const forge = (kind: ForgeKind, repositoryUrl: string, apiUrl: string, auth: GitAuth, now = () => 0) =>
  openForge({
    repositoryUrl,
    forge: { kind, apiUrl },
    credentials: fixedCredentials(auth),
    clock: { now, setTimeout: () => 0, clearTimeout: () => undefined },
  });

describe('how each host takes the repository’s token', () => {
  it('GitHub: Bearer, whether Git sends the token as a password or as a bearer', async () => {
    const github = await track(startGitHubEmulator({ token: 'ghs_x' }));
    await forge('github', 'https://github.com/acme/fleet', `${github.url}`, {
      username: 'x-access-token',
      token: 'ghs_x',
    }).findOpen('a', 'main');
    await forge('github', 'https://github.com/acme/fleet', `${github.url}`, { bearer: 'ghs_x' }).findOpen(
      'a',
      'main',
    );

    expect(github.calls.map((call) => call.headers.authorization)).toEqual(['Bearer ghs_x', 'Bearer ghs_x']);
    expect(github.calls[0]?.headers['x-github-api-version']).toBe('2022-11-28');
    expect(github.calls[0]?.headers['user-agent']).toMatch(/^kubescribe\//);
  });

  it('Azure Repos: Basic with a PAT, Bearer with an Entra ID token, as the Git layer sends them', async () => {
    const azure = await track(startAzureReposEmulator({ token: 'pat' }));
    const url = 'https://dev.azure.com/acme/platform/_git/fleet';
    await forge('azure-repos', url, `${azure.url}/acme`, { username: 'kubescribe', token: 'pat' }).findOpen(
      'a',
      'main',
    );
    await forge('azure-repos', url, `${azure.url}/acme`, { bearer: 'pat' }).findOpen('a', 'main');

    expect(azure.calls.map((call) => call.headers.authorization)).toEqual([
      `Basic ${Buffer.from('kubescribe:pat').toString('base64')}`,
      'Bearer pat',
    ]);
    expect(azure.calls[0]?.query.get('api-version')).toBe('7.1');
  });

  it('GitLab: PRIVATE-TOKEN for an access token, Bearer for an OAuth token (user name oauth2)', async () => {
    const gitlab = await track(startGitLabEmulator({ token: 'glpat' }));
    const url = 'https://gitlab.com/acme/platform/fleet';
    await forge('gitlab', url, `${gitlab.url}/api/v4`, { username: 'kubescribe', token: 'glpat' }).findOpen(
      'a',
      'main',
    );
    await forge('gitlab', url, `${gitlab.url}/api/v4`, { username: 'oauth2', token: 'glpat' }).findOpen(
      'a',
      'main',
    );

    expect(gitlab.calls.map((call) => [call.headers['private-token'], call.headers.authorization])).toEqual([
      ['glpat', undefined],
      [undefined, 'Bearer glpat'],
    ]);
  });

  it('Gitea: Authorization token', async () => {
    const gitea = await track(startGiteaEmulator({ token: 'gt' }));
    await forge('gitea', 'https://codeberg.org/acme/fleet', `${gitea.url}/api/v1`, {
      username: 'kubescribe',
      token: 'gt',
    }).findOpen('a', 'main');

    expect(gitea.calls[0]?.headers.authorization).toBe('token gt');
  });
});

describe('GitHub', () => {
  it('filters the list by owner:branch (a bare branch name would be ignored)', async () => {
    const github = await track(startGitHubEmulator({ token: 't' }));
    await forge('github', 'https://github.com/acme/fleet', `${github.url}`, { bearer: 't' }).findOpen(
      'kubescribe/prod',
      'main',
    );

    expect(github.calls[0]?.query.get('head')).toBe('acme:kubescribe/prod');
    expect(github.calls[0]?.query.get('base')).toBe('main');
  });

  it('a rate limit is transient until its reset, not a refusal of the credentials', async () => {
    const github = await track(startGitHubEmulator({ token: 't' }));
    const now = 1_700_000_000_000;
    github.failNext({
      status: 403,
      json: { message: 'API rate limit exceeded for installation ID 1.' },
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 90) },
    });
    github.failNext({
      status: 403,
      json: { message: 'You have exceeded a secondary rate limit.' },
      headers: { 'retry-after': '60' },
    });
    github.failNext({ status: 403, json: { message: 'Resource not accessible by integration' } });
    const github403 = () =>
      forge('github', 'https://github.com/acme/fleet', `${github.url}`, { bearer: 't' }, () => now)
        .read(1)
        .catch(forgeFailure);

    expect(await github403()).toMatchObject({ outcome: 'transient', retryAfterMs: 90_000 });
    expect(await github403()).toMatchObject({ outcome: 'transient', retryAfterMs: 60_000 });
    expect(await github403()).toMatchObject({
      outcome: 'authFailed',
      cause: expect.stringContaining('Resource not accessible by integration'),
    });
  });
});

describe('Azure Repos', () => {
  it('the sign-in page (HTTP 203) is a refusal of the credentials, not an answer', async () => {
    const azure = await track(startAzureReposEmulator({ token: 'pat' }));
    azure.failNext({
      status: 203,
      text: '<html><head><title>Azure DevOps Services | Sign In</title></head></html>',
    });

    const failure = await forge(
      'azure-repos',
      'https://dev.azure.com/acme/platform/_git/fleet',
      `${azure.url}/acme`,
      { bearer: 'pat' },
    )
      .findOpen('a', 'main')
      .catch(forgeFailure);

    expect(failure).toMatchObject({ outcome: 'authFailed' });
  });

  it('links each pull request to its page under the repository', async () => {
    const azure = await track(startAzureReposEmulator({ token: 'pat' }));
    const opened = await forge(
      'azure-repos',
      'https://dev.azure.com/acme/My%20Project/_git/fleet',
      `${azure.url}/acme`,
      { bearer: 'pat' },
    ).open('a', 'main', TEXT);

    expect(opened.url).toBe(
      `https://dev.azure.com/acme/My%20Project/_git/fleet/pullrequest/${opened.number}`,
    );
    expect(azure.calls[0]?.path).toBe('/acme/My%20Project/_apis/git/repositories/fleet/pullrequests');
  });
});

describe('Gitea', () => {
  it('finds its pull request past the first page of open ones', async () => {
    const gitea = await track(startGiteaEmulator({ token: 'gt' }));
    const client = forge('gitea', 'https://codeberg.org/acme/fleet', `${gitea.url}/api/v1`, { bearer: 'gt' });
    const ours = await client.open('kubescribe/prod', 'main', TEXT);
    gitea.crowd('acme/fleet', 120);

    expect(await client.findOpen('kubescribe/prod', 'main')).toEqual(ours);
    expect(gitea.calls.filter((call) => call.method === 'GET').map((call) => call.query.get('page'))).toEqual(
      ['1', '2', '3'],
    );
  });
});

describe('GitLab', () => {
  it('names the project by its encoded path and the merge request by its iid', async () => {
    const gitlab = await track(startGitLabEmulator({ token: 'glpat' }));
    const client = forge('gitlab', 'https://gitlab.com/acme/platform/fleet', `${gitlab.url}/api/v4`, {
      username: 'u',
      token: 'glpat',
    });
    const opened = await client.open('kubescribe/prod', 'main', TEXT);
    await client.read(opened.number);

    expect(opened.number).toBe(1);
    expect(gitlab.calls.map((call) => call.path)).toEqual([
      '/api/v4/projects/acme%2Fplatform%2Ffleet/merge_requests',
      '/api/v4/projects/acme%2Fplatform%2Ffleet/merge_requests/1',
    ]);
  });
});

describe('any host', () => {
  it('an answer larger than any page of pull requests is refused, not buffered', async () => {
    const github = await track(startGitHubEmulator({ token: 't' }));
    github.failNext({ status: 200, text: `[${'"x",'.repeat(3 * 1024 * 1024)}"x"]` });

    const error = await forge('github', 'https://github.com/acme/fleet', github.url, { bearer: 't' })
      .findOpen('a', 'main')
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ForgeAnswerUnreadable);
    expect(forgeFailure(error)).toMatchObject({
      outcome: 'rejected',
      cause: expect.stringContaining('more than 8388608 bytes'),
    });
  });
});

describe('GitLab merging by fast-forward', () => {
  it('takes the merge request’s head as the merge commit when there is no merge commit', async () => {
    const gitlab = await track(startGitLabEmulator({ token: 'glpat', mergeMethod: 'ff' }));
    const client = forge('gitlab', 'https://gitlab.com/acme/fleet', `${gitlab.url}/api/v4`, {
      username: 'u',
      token: 'glpat',
    });
    const opened = await client.open('kubescribe/prod', 'main', TEXT);
    const whileOpen = await client.read(opened.number);
    gitlab.merge(opened.number, 'c'.repeat(40));

    expect(whileOpen).not.toHaveProperty('mergeCommit');
    expect(await client.read(opened.number)).toEqual({
      ...opened,
      state: 'merged',
      mergeCommit: 'c'.repeat(40),
    });
  });
});
