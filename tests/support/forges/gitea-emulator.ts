/**
 * Gitea's (and Forgejo's) pull requests API v1, as its swagger documents it
 * (https://gitea.com/api/swagger; the handlers in go-gitea/gitea routers/api/v1/repo/pull.go), on
 * loopback under `/api/v1/repos/{owner}/{repo}/pulls`:
 * - `GET …?state=&page=&limit=`: state open (default), closed or all; no head or base filter; at
 *   most 50 a page (`MAX_RESPONSE_ITEMS`), newest first, with `X-Total-Count`;
 * - `POST …` `{head, base, title, body}` → 201; 409 "pull request already exists for these
 *   targets" when an unmerged one is open for the same branches; 422 for head equal to base;
 * - `GET …/{index}` → 200, `PATCH …/{index}` `{title, body}` → 201 (as Gitea answers an edit);
 *   404 "The target couldn't be found." for an unknown index;
 * - `merged` and `merge_commit_sha` (null until merged);
 * - `Authorization: token <token>` or `Bearer <token>`; anything else 401.
 */
import type { EmulatedPull, PullControls } from './pull-store';
import { pullStore } from './pull-store';
import { type RestAnswer, type RestServer, serveRest } from './serve-rest';

export type GiteaEmulator = RestServer &
  PullControls & {
    rotate(token: string): void;
    /** `count` open pull requests from other branches, as a busy repository has. */
    crowd(repository: string, count: number): void;
  };

const MAX_RESPONSE_ITEMS = 50;
const DEFAULT_PAGING_NUM = 30;
const error = (status: number, message: string): RestAnswer => ({
  status,
  json: { message, url: 'https://gitea.com/api/swagger' },
});

export async function startGiteaEmulator({ token }: { token: string }): Promise<GiteaEmulator> {
  const store = pullStore();
  let accepted = token;
  let emulatorUrl = '';
  const server = await serveRest((call) => {
    const credential = /^(?:token|Bearer) (.+)$/i.exec(call.headers.authorization ?? '')?.[1];
    if (credential !== accepted) return error(401, 'user does not exist [uid: 0, name: ]');
    const route = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/pulls(?:\/(\d+))?$/.exec(call.path);
    if (!route) return error(404, "The target couldn't be found.");
    const [, owner = '', repo = '', index] = route;
    const repository = `${owner}/${repo}`;
    const shown = (pull: EmulatedPull) => ({
      number: pull.number,
      html_url: `${emulatorUrl}/${repository}/pulls/${pull.number}`,
      state: pull.state === 'open' ? 'open' : 'closed',
      title: pull.title,
      body: pull.description,
      merged: pull.state === 'merged',
      merge_commit_sha: pull.mergeCommit ?? null,
      head: { ref: pull.head, label: pull.head },
      base: { ref: pull.base, label: pull.base },
    });
    const text = call.body as { title?: unknown; body?: unknown; head?: unknown; base?: unknown };

    if (index === undefined && call.method === 'GET') {
      const state = call.query.get('state') ?? 'open';
      const limit = Math.min(Number(call.query.get('limit') || DEFAULT_PAGING_NUM), MAX_RESPONSE_ITEMS);
      const page = Math.max(Number(call.query.get('page') ?? 1), 1);
      const matching = store
        .inRepository(repository)
        .filter((pull) => state === 'all' || (state === 'open') === (pull.state === 'open'))
        .reverse();
      return {
        status: 200,
        json: matching.slice((page - 1) * limit, page * limit).map(shown),
        headers: { 'x-total-count': String(matching.length) },
      };
    }
    if (index === undefined && call.method === 'POST') {
      const { head, base, title } = text ?? {};
      if (typeof head !== 'string' || typeof base !== 'string' || typeof title !== 'string' || !title)
        return error(422, '[Title]: Required');
      if (head === base)
        return error(422, 'Invalid PullRequest: There are no changes between the head and the base');
      const existing = store.openFor(repository, head, base);
      if (existing)
        return error(
          409,
          `pull request already exists for these targets [id: ${existing.number}, issue_id: ${existing.number}, head_branch: ${head}, base_branch: ${base}]`,
        );
      const pull = store.add({
        repository,
        title,
        description: typeof text.body === 'string' ? text.body : '',
        head,
        base,
      });
      return { status: 201, json: shown(pull) };
    }
    const pull = index === undefined ? undefined : store.find(Number(index));
    if (!pull || pull.repository !== repository) return error(404, "The target couldn't be found.");
    if (call.method === 'GET') return { status: 200, json: shown(pull) };
    if (call.method === 'PATCH') {
      if (typeof text?.title === 'string' && text.title) pull.title = text.title;
      if (typeof text?.body === 'string') pull.description = text.body;
      return { status: 201, json: shown(pull) };
    }
    return error(405, 'Method Not Allowed');
  });
  emulatorUrl = server.url;
  return {
    ...server,
    ...store.controls,
    rotate(next) {
      accepted = next;
    },
    crowd(repository, count) {
      for (let i = 0; i < count; i += 1)
        store.add({ repository, title: `other ${i}`, description: '', head: `feature/${i}`, base: 'main' });
    },
  };
}
