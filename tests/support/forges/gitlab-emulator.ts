/**
 * GitLab's Merge requests API (REST v4), as documented at https://docs.gitlab.com/api/merge_requests/,
 * on loopback under `/api/v4/projects/{id}/merge_requests`, where `{id}` is the project's path
 * URL-encoded as one segment (`group%2Fsub%2Fproject`; an unencoded path is another route: 404):
 * - `GET …?state=&source_branch=&target_branch=`: state opened/closed/merged/all (all by default);
 * - `POST …` `{source_branch, target_branch, title, description}` → 201; 409 "Another open merge
 *   request already exists for this source branch: !iid"; 400 for a description over 1,048,576
 *   characters or a missing title;
 * - `GET`/`PUT …/{iid}` → 200; the path takes the project-scoped `iid`, not the global `id`
 *   (404 "404 Not found" otherwise); `merge_commit_sha` is null until merged;
 * - `PRIVATE-TOKEN: <token>` or `Authorization: Bearer <token>`
 *   (https://docs.gitlab.com/api/rest/authentication/); anything else 401 "401 Unauthorized".
 */
import { characters, type EmulatedPull, type PullControls, pullStore } from './pull-store';
import { type RestAnswer, type RestServer, serveRest } from './serve-rest';

export type GitLabEmulator = RestServer & PullControls & { rotate(token: string): void };

const DESCRIPTION_LIMIT = 1_048_576;
/** Global ids run apart from iids, so a client that sends the wrong one is caught. */
const GLOBAL_ID_OFFSET = 7_000;
const notFound: RestAnswer = { status: 404, json: { message: '404 Not found' } };

export async function startGitLabEmulator({ token }: { token: string }): Promise<GitLabEmulator> {
  const store = pullStore();
  let accepted = token;
  let emulatorUrl = '';
  const server = await serveRest((call) => {
    const credential =
      (call.headers['private-token'] as string | undefined) ??
      /^Bearer (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    if (credential !== accepted) return { status: 401, json: { message: '401 Unauthorized' } };
    const route = /^\/api\/v4\/projects\/([^/]+)\/merge_requests(?:\/(\d+))?$/.exec(call.path);
    if (!route) return notFound;
    const [, id = '', iid] = route;
    const repository = decodeURIComponent(id);
    const shown = (pull: EmulatedPull) => ({
      id: pull.number + GLOBAL_ID_OFFSET,
      iid: pull.number,
      project_id: 1,
      title: pull.title,
      description: pull.description,
      state: pull.state === 'open' ? 'opened' : pull.state,
      source_branch: pull.head,
      target_branch: pull.base,
      web_url: `${emulatorUrl}/${repository}/-/merge_requests/${pull.number}`,
      sha: pull.testMergeCommit,
      merge_commit_sha: pull.mergeCommit ?? null,
      squash_commit_sha: null,
    });
    const text = call.body as {
      title?: unknown;
      description?: unknown;
      source_branch?: unknown;
      target_branch?: unknown;
    };
    const tooLong =
      typeof text?.description === 'string' && characters(text.description) > DESCRIPTION_LIMIT
        ? {
            status: 400,
            json: { message: { description: [`is too long (maximum is ${DESCRIPTION_LIMIT} characters)`] } },
          }
        : undefined;

    if (iid === undefined && call.method === 'GET') {
      const state = call.query.get('state') ?? 'all';
      const source = call.query.get('source_branch');
      const target = call.query.get('target_branch');
      const listed = store
        .inRepository(repository)
        .map(shown)
        .filter((request) => state === 'all' || request.state === state)
        .filter((request) => !source || request.source_branch === source)
        .filter((request) => !target || request.target_branch === target)
        .reverse();
      return { status: 200, json: listed };
    }
    if (iid === undefined && call.method === 'POST') {
      const { source_branch: head, target_branch: base, title } = text ?? {};
      if (typeof head !== 'string' || typeof base !== 'string' || typeof title !== 'string' || !title)
        return { status: 400, json: { error: 'title, source_branch, target_branch are missing' } };
      if (tooLong) return tooLong;
      const existing = store.openFor(repository, head, base);
      if (existing)
        return {
          status: 409,
          json: {
            message: [
              `Another open merge request already exists for this source branch: !${existing.number}`,
            ],
          },
        };
      const pull = store.add({
        repository,
        title,
        description: typeof text.description === 'string' ? text.description : '',
        head,
        base,
      });
      return { status: 201, json: shown(pull) };
    }
    const pull = iid === undefined ? undefined : store.find(Number(iid));
    if (!pull || pull.repository !== repository) return notFound;
    if (call.method === 'GET') return { status: 200, json: shown(pull) };
    if (call.method === 'PUT') {
      if (tooLong) return tooLong;
      if (typeof text?.title === 'string') pull.title = text.title;
      if (typeof text?.description === 'string') pull.description = text.description;
      return { status: 200, json: shown(pull) };
    }
    return { status: 405, json: { message: '405 Method Not Allowed' } };
  });
  emulatorUrl = server.url;
  return {
    ...server,
    ...store.controls,
    rotate(next) {
      accepted = next;
    },
  };
}
