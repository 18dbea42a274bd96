/**
 * GitHub's pull requests REST API, as documented at https://docs.github.com/en/rest/pulls/pulls
 * (API version 2022-11-28), on loopback:
 * - `GET /repos/{owner}/{repo}/pulls?state=&head=&base=&per_page=&page=`: `state` open (default),
 *   closed or all; `head` filters only in the form `owner:branch`: a bare branch name is silently
 *   ignored and every pull request listed (hub4j/github-api#538, GitHub community discussion 24354).
 *   List items carry `merged_at`, not `merged`.
 * - `POST …/pulls` `{title, head, base, body}` → 201; 422 "Validation Failed" with a custom error
 *   "A pull request already exists for owner:branch." when one is open for the same head and base,
 *   `missing_field` for a missing title/head/base, and for a body over 65,536 characters.
 * - `GET …/pulls/{n}` (with `merged`), `PATCH …/pulls/{n}` `{title, body}` → 200; 404 `Not Found`.
 * - `merge_commit_sha` before a merge is a test merge commit, not the merge (as GitHub documents).
 * - `Authorization: Bearer <token>` or `token <token>`; anything else 401 "Bad credentials".
 */
import { characters, type EmulatedPull, type PullControls, pullStore } from './pull-store';
import { type RestAnswer, type RestServer, serveRest } from './serve-rest';

export type GitHubEmulator = RestServer &
  PullControls & {
    /** From now on only `token` is accepted (the old one was revoked or expired). */
    rotate(token: string): void;
  };

const BODY_LIMIT = 65_536;
const validationFailed = (errors: Record<string, string>[]): RestAnswer => ({
  status: 422,
  json: {
    message: 'Validation Failed',
    errors,
    documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
    status: '422',
  },
});
const notFound: RestAnswer = {
  status: 404,
  json: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' },
};

export async function startGitHubEmulator({ token }: { token: string }): Promise<GitHubEmulator> {
  const store = pullStore();
  let accepted = token;
  const server = await serveRest((call) => {
    const credential = /^(?:Bearer|token) (.+)$/i.exec(call.headers.authorization ?? '')?.[1];
    if (credential !== accepted)
      return {
        status: 401,
        json: {
          message: 'Bad credentials',
          documentation_url: 'https://docs.github.com/rest',
          status: '401',
        },
      };
    const route = /^\/repos\/([^/]+)\/([^/]+)\/pulls(?:\/(\d+))?$/.exec(call.path);
    if (!route) return notFound;
    const [, owner = '', repo = '', number] = route;
    const repository = `${owner}/${repo}`;
    const shown = (pull: EmulatedPull, single: boolean) => ({
      number: pull.number,
      html_url: `https://github.com/${repository}/pull/${pull.number}`,
      state: pull.state === 'open' ? 'open' : 'closed',
      title: pull.title,
      body: pull.description,
      merged_at: pull.state === 'merged' ? '2026-12-03T12:00:00Z' : null,
      merge_commit_sha: pull.mergeCommit ?? pull.testMergeCommit,
      ...(single ? { merged: pull.state === 'merged' } : {}),
      head: { ref: pull.head, label: `${owner}:${pull.head}` },
      base: { ref: pull.base, label: `${owner}:${pull.base}` },
    });
    const text = call.body as { title?: unknown; body?: unknown; head?: unknown; base?: unknown };
    const tooLong =
      typeof text?.body === 'string' && characters(text.body) > BODY_LIMIT
        ? validationFailed([
            {
              resource: 'Issue',
              code: 'custom',
              field: 'body',
              message: `body is too long (maximum is ${BODY_LIMIT} characters)`,
            },
          ])
        : undefined;

    if (number === undefined && call.method === 'GET') {
      const state = call.query.get('state') ?? 'open';
      const head = call.query.get('head');
      const [headOwner, headRef] = head?.includes(':') ? head.split(':', 2) : [];
      const base = call.query.get('base');
      const perPage = Math.min(Number(call.query.get('per_page') ?? 30), 100);
      const page = Number(call.query.get('page') ?? 1);
      const listed = store
        .inRepository(repository)
        .filter((pull) => state === 'all' || (state === 'open') === (pull.state === 'open'))
        .filter(
          (pull) =>
            headRef === undefined ||
            (headOwner?.toLowerCase() === owner.toLowerCase() && pull.head === headRef),
        )
        .filter((pull) => !base || pull.base === base)
        .reverse() // newest first, GitHub's default sort
        .slice((page - 1) * perPage, page * perPage);
      return { status: 200, json: listed.map((pull) => shown(pull, false)) };
    }
    if (number === undefined && call.method === 'POST') {
      const missing = (['title', 'head', 'base'] as const).filter(
        (field) => typeof text?.[field] !== 'string' || !text[field],
      );
      if (missing.length)
        return validationFailed(
          missing.map((field) => ({ resource: 'PullRequest', code: 'missing_field', field })),
        );
      if (tooLong) return tooLong;
      const head = String(text.head);
      const base = String(text.base);
      if (store.openFor(repository, head, base))
        return validationFailed([
          {
            resource: 'PullRequest',
            code: 'custom',
            message: `A pull request already exists for ${owner}:${head}.`,
          },
        ]);
      const pull = store.add({
        repository,
        title: String(text.title),
        description: typeof text.body === 'string' ? text.body : '',
        head,
        base,
      });
      return { status: 201, json: shown(pull, true) };
    }
    const pull = number === undefined ? undefined : store.find(Number(number));
    if (!pull || pull.repository !== repository) return notFound;
    if (call.method === 'GET') return { status: 200, json: shown(pull, true) };
    if (call.method === 'PATCH') {
      if (tooLong) return tooLong;
      if (typeof text?.title === 'string') pull.title = text.title;
      if (typeof text?.body === 'string') pull.description = text.body;
      return { status: 200, json: shown(pull, true) };
    }
    return notFound;
  });
  return {
    ...server,
    ...store.controls,
    rotate(next) {
      accepted = next;
    },
  };
}
