/**
 * Azure Repos' Pull Requests REST API 7.1, as documented at
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests, on loopback, under
 * `/{organization}/{project}/_apis/git/repositories/{repository}/pullrequests`:
 * - every call needs `api-version` (400 otherwise, as Azure DevOps answers);
 * - `GET …/pullrequests?searchCriteria.sourceRefName=&searchCriteria.targetRefName=&searchCriteria.status=`:
 *   ref names compared whole (`refs/heads/…`), status active by default, `all` for every one;
 *   answers `{value, count}`;
 * - `POST …/pullrequests` `{sourceRefName, targetRefName, title, description}` → 201; 409 TF401179
 *   when one is active for the same branches; 400 for a description over 4,000 characters;
 * - `GET`/`PATCH …/pullrequests/{id}` → 200; 404 TF401180 for an unknown id;
 * - `lastMergeCommit` is the merge preview while active, the merge once completed;
 * - `Authorization: Basic` (any user name, the token as password) or `Bearer`; a wrong one is 401,
 *   none at all the 203 sign-in page.
 */
import { characters, type EmulatedPull, type PullControls, pullStore } from './pull-store';
import { type RestAnswer, type RestServer, serveRest } from './serve-rest';

export type AzureReposEmulator = RestServer & PullControls & { rotate(token: string): void };

const DESCRIPTION_LIMIT = 4_000;
const failure = (status: number, typeKey: string, message: string): RestAnswer => ({
  status,
  json: {
    $id: '1',
    innerException: null,
    message,
    typeName: `Microsoft.TeamFoundation.Git.Server.${typeKey}`,
    typeKey,
    errorCode: 0,
    eventId: 3000,
  },
});

export async function startAzureReposEmulator({ token }: { token: string }): Promise<AzureReposEmulator> {
  const store = pullStore();
  let accepted = token;
  const server = await serveRest((call) => {
    const header = call.headers.authorization;
    if (!header)
      return {
        status: 203,
        text: '<html><head><title>Azure DevOps Services | Sign In</title></head></html>',
      };
    const basic = /^Basic (.+)$/.exec(header)?.[1];
    const credential = basic
      ? Buffer.from(basic, 'base64').toString().split(':').slice(1).join(':')
      : /^Bearer (.+)$/.exec(header)?.[1];
    if (credential !== accepted)
      return { status: 401, text: '<html><head><title>Access Denied</title></head></html>' };
    const route = /^\/([^/]+)\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/pullrequests(?:\/(\d+))?$/i.exec(
      call.path,
    );
    if (!route) return failure(404, 'NotFoundException', 'The resource cannot be found.');
    if (!call.query.get('api-version'))
      return failure(
        400,
        'VssVersionNotSpecifiedException',
        'No api-version was supplied for the "GET" request. An api-version is required.',
      );
    const [, org = '', project = '', repo = '', id] = route;
    const repository = `${org}/${project}/${repo}`;
    const shown = (pull: EmulatedPull) => ({
      pullRequestId: pull.number,
      codeReviewId: pull.number,
      status: pull.state === 'open' ? 'active' : pull.state === 'merged' ? 'completed' : 'abandoned',
      title: pull.title,
      description: pull.description,
      sourceRefName: `refs/heads/${pull.head}`,
      targetRefName: `refs/heads/${pull.base}`,
      mergeStatus: 'succeeded',
      lastMergeCommit: { commitId: pull.mergeCommit ?? pull.testMergeCommit },
      url: `https://dev.azure.com/${org}/${project}/_apis/git/repositories/${repo}/pullRequests/${pull.number}`,
      repository: { name: repo, project: { name: project } },
    });
    const text = call.body as {
      title?: unknown;
      description?: unknown;
      sourceRefName?: unknown;
      targetRefName?: unknown;
    };
    const tooLong =
      typeof text?.description === 'string' && characters(text.description) > DESCRIPTION_LIMIT
        ? failure(
            400,
            'InvalidArgumentValueException',
            `The description of the pull request is longer than ${DESCRIPTION_LIMIT} characters.`,
          )
        : undefined;

    if (id === undefined && call.method === 'GET') {
      const source = call.query.get('searchCriteria.sourceRefName');
      const target = call.query.get('searchCriteria.targetRefName');
      const status = call.query.get('searchCriteria.status') ?? 'active';
      const value = store
        .inRepository(repository)
        .map(shown)
        .filter((pull) => status === 'all' || pull.status === status)
        .filter((pull) => !source || pull.sourceRefName === source)
        .filter((pull) => !target || pull.targetRefName === target)
        .reverse();
      return { status: 200, json: { value, count: value.length } };
    }
    if (id === undefined && call.method === 'POST') {
      const { sourceRefName: source, targetRefName: target, title } = text ?? {};
      if (
        typeof source !== 'string' ||
        typeof target !== 'string' ||
        !source.startsWith('refs/') ||
        !target.startsWith('refs/')
      )
        return failure(
          400,
          'InvalidArgumentValueException',
          'The source and target ref names must be full ref names.',
        );
      if (typeof title !== 'string' || !title)
        return failure(400, 'InvalidArgumentValueException', 'A title is required.');
      if (tooLong) return tooLong;
      const head = source.replace(/^refs\/heads\//, '');
      const base = target.replace(/^refs\/heads\//, '');
      if (store.openFor(repository, head, base))
        return failure(
          409,
          'GitPullRequestExistsException',
          'TF401179: An active pull request for the source and target branch already exists.',
        );
      const pull = store.add({
        repository,
        title,
        description: typeof text.description === 'string' ? text.description : '',
        head,
        base,
      });
      return { status: 201, json: shown(pull) };
    }
    const pull = id === undefined ? undefined : store.find(Number(id));
    if (!pull || pull.repository !== repository)
      return failure(
        404,
        'GitPullRequestNotFoundException',
        'TF401180: The requested pull request was not found.',
      );
    if (call.method === 'GET') return { status: 200, json: shown(pull) };
    if (call.method === 'PATCH') {
      if (tooLong) return tooLong;
      if (typeof text?.title === 'string') pull.title = text.title;
      if (typeof text?.description === 'string') pull.description = text.description;
      return { status: 200, json: shown(pull) };
    }
    return failure(405, 'MethodNotAllowed', 'The requested resource does not support this method.');
  });
  return {
    ...server,
    ...store.controls,
    rotate(next) {
      accepted = next;
    },
  };
}
