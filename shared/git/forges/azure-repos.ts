import { z } from 'zod';
import { authorizationHeader } from '../credentials';
import type { Forge, PullRequest, PullRequestText } from './forge';
import { callForge, type ForgeHttpOptions } from './forge-http';
import { boundText } from './pull-request-text';

/** Azure Repos takes a description of at most 4,000 characters and a title of at most 400. */
export const AZURE_REPOS_LIMITS = { title: 400, description: 4_000 };

const API_VERSION = '7.1';
const BRANCH = 'refs/heads/';

/**
 * A pull request as the Pull Requests REST API (7.1) answers it
 * (https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests). `status` is
 * active/completed/abandoned (`notSet` never comes back for one that exists); branches are full
 * ref names; `lastMergeCommit` is the merge preview while active and the merge once completed;
 * `url` is the API's, so the page a person opens is built from the repository's web URL.
 */
const PullSchema = z.object({
  pullRequestId: z.number().int().positive(),
  status: z.enum(['active', 'completed', 'abandoned', 'notSet']),
  sourceRefName: z.string(),
  targetRefName: z.string(),
  lastMergeCommit: z.object({ commitId: z.string() }).nullable().optional(),
});

const branchOf = (ref: string) => (ref.startsWith(BRANCH) ? ref.slice(BRANCH.length) : ref);

/** Pull requests on Azure Repos (Azure DevOps Services or Server), by the Pull Requests REST API. */
export function azureReposForge({
  apiUrl,
  project,
  repo,
  webUrl,
  http,
}: {
  apiUrl: string;
  project: string;
  repo: string;
  webUrl: string;
  http: Omit<ForgeHttpOptions, 'authHeaders' | 'headers' | 'reclassify'>;
}): Forge {
  // Basic (a PAT) or Bearer (an Entra ID token), exactly as the Git layer sends them
  const options: ForgeHttpOptions = {
    ...http,
    authHeaders: authorizationHeader,
    headers: { accept: 'application/json' },
  };
  const pulls = `${apiUrl}/${encodeURIComponent(project)}/_apis/git/repositories/${encodeURIComponent(repo)}/pullrequests`;
  const at = (path: string, query: Record<string, string> = {}) =>
    `${pulls}${path}?${new URLSearchParams({ ...query, 'api-version': API_VERSION })}`;
  const pullRequestOf = (pull: z.infer<typeof PullSchema>): PullRequest => {
    const state = pull.status === 'completed' ? 'merged' : pull.status === 'abandoned' ? 'closed' : 'open';
    return {
      number: pull.pullRequestId,
      url: `${webUrl}/pullrequest/${pull.pullRequestId}`,
      state,
      ...(state === 'merged' && pull.lastMergeCommit ? { mergeCommit: pull.lastMergeCommit.commitId } : {}),
      head: branchOf(pull.sourceRefName),
      base: branchOf(pull.targetRefName),
    };
  };
  const bodyOf = (text: PullRequestText) => boundText(text, AZURE_REPOS_LIMITS);
  return {
    kind: 'azure-repos',
    async findOpen(head, base) {
      // the criteria are full ref names: a bare branch name matches nothing
      const found = await callForge(options, {
        what: `Azure Repos: find the active pull request from ${head} into ${base}`,
        method: 'GET',
        url: at('', {
          'searchCriteria.sourceRefName': `${BRANCH}${head}`,
          'searchCriteria.targetRefName': `${BRANCH}${base}`,
          'searchCriteria.status': 'active',
        }),
        ok: [200],
        schema: z.object({ value: z.array(PullSchema) }),
      });
      const match = found.value.find(
        (pull) => pull.sourceRefName === `${BRANCH}${head}` && pull.targetRefName === `${BRANCH}${base}`,
      );
      return match && pullRequestOf(match);
    },
    async open(head, base, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `Azure Repos: open a pull request from ${head} into ${base}`,
          method: 'POST',
          url: at(''),
          body: { sourceRefName: `${BRANCH}${head}`, targetRefName: `${BRANCH}${base}`, ...bodyOf(text) },
          ok: [201],
          schema: PullSchema,
        }),
      );
    },
    async update(number, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `Azure Repos: update pull request ${number}`,
          method: 'PATCH',
          url: at(`/${number}`),
          body: bodyOf(text),
          ok: [200],
          schema: PullSchema,
        }),
      );
    },
    async read(number) {
      return pullRequestOf(
        await callForge(options, {
          what: `Azure Repos: read pull request ${number}`,
          method: 'GET',
          url: at(`/${number}`),
          ok: [200],
          schema: PullSchema,
        }),
      );
    },
  };
}
