import { z } from 'zod';
import type { GitAuth } from '../types';
import type { Forge, PullRequest, PullRequestText } from './forge';
import { callForge, type ForgeHttpOptions } from './forge-http';
import { boundText } from './pull-request-text';

/** GitLab's limits: a title of 255 characters, a description of 1,048,576. */
export const GITLAB_LIMITS = { title: 255, description: 1_048_576 };

/**
 * A merge request as the Merge requests API answers it (https://docs.gitlab.com/api/merge_requests/).
 * `iid` is the number people see (`!12`), `id` is instance-wide and not what the paths take; `state`
 * is opened/closed/merged, or locked for the moment a merge is under way. `merge_commit_sha` is null
 * when the project merges by fast-forward: then the base's new tip is the squash commit, if there
 * was one, or the merge request's own head (`sha`).
 */
const MergeRequestSchema = z.object({
  iid: z.number().int().positive(),
  web_url: z.string().url(),
  state: z.enum(['opened', 'closed', 'merged', 'locked']),
  merge_commit_sha: z.string().nullable().optional(),
  squash_commit_sha: z.string().nullable().optional(),
  sha: z.string().nullable().optional(),
  source_branch: z.string(),
  target_branch: z.string(),
});

function pullRequestOf(request: z.infer<typeof MergeRequestSchema>): PullRequest {
  const state = request.state === 'merged' ? 'merged' : request.state === 'closed' ? 'closed' : 'open';
  const mergeCommit = request.merge_commit_sha ?? request.squash_commit_sha ?? request.sha;
  return {
    number: request.iid,
    url: request.web_url,
    state,
    ...(state === 'merged' && mergeCommit ? { mergeCommit } : {}),
    head: request.source_branch,
    base: request.target_branch,
  };
}

/**
 * GitLab takes a personal, project or group access token as `PRIVATE-TOKEN`, and an OAuth token
 * (which Git sends with the user name `oauth2`) as `Authorization: Bearer`
 * (https://docs.gitlab.com/api/rest/authentication/).
 */
export function gitlabAuthHeaders(auth: GitAuth): Record<string, string> {
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  if (auth.username === 'oauth2') return { authorization: `Bearer ${auth.token}` };
  return { 'private-token': auth.token };
}

/** Merge requests on GitLab (gitlab.com or self-managed), by the REST API v4. */
export function gitlabForge({
  apiUrl,
  projectPath,
  http,
}: {
  apiUrl: string;
  projectPath: string;
  http: Omit<ForgeHttpOptions, 'authHeaders' | 'headers' | 'reclassify'>;
}): Forge {
  const options: ForgeHttpOptions = {
    ...http,
    authHeaders: gitlabAuthHeaders,
    headers: { accept: 'application/json' },
  };
  // the project's path is one URL-encoded `:id` segment (group%2Fsub%2Fproject)
  const requests = `${apiUrl}/projects/${encodeURIComponent(projectPath)}/merge_requests`;
  const bodyOf = (text: PullRequestText) => boundText(text, GITLAB_LIMITS);
  return {
    kind: 'gitlab',
    async findOpen(head, base) {
      const query = new URLSearchParams({
        state: 'opened',
        source_branch: head,
        target_branch: base,
        per_page: '100',
      });
      const found = await callForge(options, {
        what: `GitLab: find the open merge request from ${head} into ${base}`,
        method: 'GET',
        url: `${requests}?${query}`,
        ok: [200],
        schema: z.array(MergeRequestSchema),
      });
      const match = found.find((request) => request.source_branch === head && request.target_branch === base);
      return match && pullRequestOf(match);
    },
    async open(head, base, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `GitLab: open a merge request from ${head} into ${base}`,
          method: 'POST',
          url: requests,
          body: { source_branch: head, target_branch: base, ...bodyOf(text) },
          ok: [201],
          schema: MergeRequestSchema,
        }),
      );
    },
    async update(number, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `GitLab: update merge request !${number}`,
          method: 'PUT',
          url: `${requests}/${number}`,
          body: bodyOf(text),
          ok: [200],
          schema: MergeRequestSchema,
        }),
      );
    },
    async read(number) {
      return pullRequestOf(
        await callForge(options, {
          what: `GitLab: read merge request !${number}`,
          method: 'GET',
          url: `${requests}/${number}`,
          ok: [200],
          schema: MergeRequestSchema,
        }),
      );
    },
  };
}
