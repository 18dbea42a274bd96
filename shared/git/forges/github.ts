import { z } from 'zod';
import type { HttpRefusal } from '../errors';
import { retryAfterMs } from '../http-status';
import type { GitAuth } from '../types';
import type { Forge, PullRequest, PullRequestText } from './forge';
import { callForge, type ForgeHttpOptions, type ForgeRefusal } from './forge-http';
import { boundText } from './pull-request-text';

/**
 * GitHub's limits: a body of at most 65,536 characters (GitHub answers 422 "body is too long");
 * titles have no documented limit, 256 keeps them readable in every list.
 */
export const GITHUB_LIMITS = { title: 256, description: 65_536 };

const Ref = z.object({ ref: z.string() });
/**
 * A pull request as `GET/POST/PATCH /repos/{owner}/{repo}/pulls[/{n}]` answers it
 * (https://docs.github.com/en/rest/pulls/pulls). `merged` is only in a single pull request's answer
 * (the list has `merged_at`), and before a merge `merge_commit_sha` holds the *test* merge commit,
 * so it is the merge commit only once merged.
 */
const PullSchema = z.object({
  number: z.number().int().positive(),
  html_url: z.string().url(),
  state: z.enum(['open', 'closed']),
  merged: z.boolean().optional(),
  merged_at: z.string().nullable().optional(),
  merge_commit_sha: z.string().nullable().optional(),
  head: Ref,
  base: Ref,
});

function pullRequestOf(pull: z.infer<typeof PullSchema>): PullRequest {
  const merged = pull.merged ?? Boolean(pull.merged_at);
  const state = pull.state === 'open' ? 'open' : merged ? 'merged' : 'closed';
  return {
    number: pull.number,
    url: pull.html_url,
    state,
    ...(state === 'merged' && pull.merge_commit_sha ? { mergeCommit: pull.merge_commit_sha } : {}),
    head: pull.head.ref,
    base: pull.base.ref,
  };
}

/** GitHub takes a token as `Authorization: Bearer`, whether Git sends it as a password or not. */
export function githubAuthHeaders(auth: GitAuth): Record<string, string> {
  return { authorization: `Bearer ${'bearer' in auth ? auth.bearer : auth.token}` };
}

/**
 * A rate limit is no refusal of the credentials: GitHub answers 403 or 429 with
 * `x-ratelimit-remaining: 0` (wait until `x-ratelimit-reset`, epoch seconds) or, for its secondary
 * limits, with `retry-after`
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api).
 */
export function githubRateLimit(refusal: ForgeRefusal, now: number): HttpRefusal {
  const { body: _body, headers, ...plain } = refusal;
  if (refusal.status !== 403 && refusal.status !== 429) return plain;
  const retryAfter = retryAfterMs(headers.get('retry-after') ?? undefined, now);
  const reset = Number(headers.get('x-ratelimit-reset'));
  const exhausted = headers.get('x-ratelimit-remaining') === '0';
  if (retryAfter === undefined && !exhausted) return plain;
  const wait = retryAfter ?? (Number.isFinite(reset) ? Math.max(reset * 1000 - now, 0) : undefined);
  return {
    outcome: 'transient',
    status: refusal.status,
    cause: `GitHub's rate limit (HTTP ${refusal.status})`,
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  };
}

/** Pull requests on GitHub or GitHub Enterprise Server, by the REST API's pulls endpoints. */
export function githubForge({
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
    authHeaders: githubAuthHeaders,
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    reclassify: githubRateLimit,
  };
  const pulls = `${apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls`;
  const bodyOf = (text: PullRequestText) => {
    const bounded = boundText(text, GITHUB_LIMITS);
    return { title: bounded.title, body: bounded.description };
  };
  return {
    kind: 'github',
    async findOpen(head, base) {
      // `head` must be `owner:branch`: a bare branch name is ignored and every open pull request listed
      const query = new URLSearchParams({ state: 'open', head: `${owner}:${head}`, base, per_page: '100' });
      const found = await callForge(options, {
        what: `GitHub: find the open pull request from ${head} into ${base}`,
        method: 'GET',
        url: `${pulls}?${query}`,
        ok: [200],
        schema: z.array(PullSchema),
      });
      const match = found.find((pull) => pull.head.ref === head && pull.base.ref === base);
      return match && pullRequestOf(match);
    },
    async open(head, base, text) {
      return pullRequestOf(
        await callForge(options, {
          what: `GitHub: open a pull request from ${head} into ${base}`,
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
          what: `GitHub: update pull request #${number}`,
          method: 'PATCH',
          url: `${pulls}/${number}`,
          body: bodyOf(text),
          ok: [200],
          schema: PullSchema,
        }),
      );
    },
    async read(number) {
      return pullRequestOf(
        await callForge(options, {
          what: `GitHub: read pull request #${number}`,
          method: 'GET',
          url: `${pulls}/${number}`,
          ok: [200],
          schema: PullSchema,
        }),
      );
    },
  };
}
