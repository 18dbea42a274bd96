import { z } from 'zod';
import type { GitAuth } from '../types';
import type { Forge, PullRequest, PullRequestText } from './forge';
import { callForge, type ForgeHttpOptions } from './forge-http';
import { boundText } from './pull-request-text';

/**
 * Gitea's limits: a title of 255 characters; a body's column has no documented limit, so
 * kubescribe keeps descriptions to GitHub's 65,536, which Gitea's pages show whole.
 */
export const GITEA_LIMITS = { title: 255, description: 65_536 };

/** Items per page the list asks for: Gitea's default `MAX_RESPONSE_ITEMS`, the most it gives. */
const PAGE = 50;
/** Pages read before giving up on finding an open pull request (2,500 open ones). */
const MAX_PAGES = 50;

const Ref = z.object({ ref: z.string() });
/**
 * A pull request as Gitea's and Forgejo's API v1 answers it (https://gitea.com/api/swagger,
 * `repoGetPullRequest`): `state` open/closed with `merged`, `merge_commit_sha` set once merged.
 */
const PullSchema = z.object({
  number: z.number().int().positive(),
  html_url: z.string().url(),
  state: z.enum(['open', 'closed']),
  merged: z.boolean(),
  merge_commit_sha: z.string().nullable().optional(),
  head: Ref,
  base: Ref,
});

function pullRequestOf(pull: z.infer<typeof PullSchema>): PullRequest {
  const state = pull.state === 'open' ? 'open' : pull.merged ? 'merged' : 'closed';
  return {
    number: pull.number,
    url: pull.html_url,
    state,
    ...(state === 'merged' && pull.merge_commit_sha ? { mergeCommit: pull.merge_commit_sha } : {}),
    head: pull.head.ref,
    base: pull.base.ref,
  };
}

/** Gitea takes an access token as `Authorization: token`, an OAuth token as `Bearer`. */
export function giteaAuthHeaders(auth: GitAuth): Record<string, string> {
  return { authorization: 'bearer' in auth ? `Bearer ${auth.bearer}` : `token ${auth.token}` };
}

/** Pull requests on Gitea or Forgejo, by the API v1. */
export function giteaForge({
  apiUrl,
  owner,
  repo,
  http,
}: {
  apiUrl: string;
  owner: string;
  repo: string;
  http: Omit<ForgeHttpOptions, 'authHeaders' | 'headers' | 'reclassify'>;
}): Forge {
  const options: ForgeHttpOptions = {
    ...http,
    authHeaders: giteaAuthHeaders,
    headers: { accept: 'application/json' },
  };
  const pulls = `${apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls`;
  const bodyOf = (text: PullRequestText) => {
    const bounded = boundText(text, GITEA_LIMITS);
    return { title: bounded.title, body: bounded.description };
  };
  return {
    kind: 'gitea',
    async findOpen(head, base) {
      // the list takes no head or base filter (older Gitea and Forgejo have none): the open pull
      // requests are read page by page and matched here
      for (let page = 1; page <= MAX_PAGES; page += 1) {
        const query = new URLSearchParams({ state: 'open', page: String(page), limit: String(PAGE) });
        const listed = await callForge(options, {
          what: `Gitea: find the open pull request from ${head} into ${base}`,
          method: 'GET',
          url: `${pulls}?${query}`,
          ok: [200],
          schema: z.array(PullSchema),
        });
        const match = listed.find(
          (pull) => pull.state === 'open' && pull.head.ref === head && pull.base.ref === base,
        );
        if (match) return pullRequestOf(match);
        if (listed.length < PAGE) return undefined;
      }
      return undefined;
    },
    async open(head, base, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `Gitea: open a pull request from ${head} into ${base}`,
          method: 'POST',
          url: pulls,
          body: { head, base, ...bodyOf(text) },
          ok: [201],
          schema: PullSchema,
        }),
      );
    },
    async update(number, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `Gitea: update pull request #${number}`,
          method: 'PATCH',
          url: `${pulls}/${number}`,
          body: bodyOf(text),
          // Gitea documents 201 for an edit (`repoEditPullRequest`)
          ok: [200, 201],
          schema: PullSchema,
        }),
      );
    },
    async read(number) {
      return pullRequestOf(
        await callForge(options, {
          what: `Gitea: read pull request #${number}`,
          method: 'GET',
          url: `${pulls}/${number}`,
          ok: [200],
          schema: PullSchema,
        }),
      );
    },
  };
}
