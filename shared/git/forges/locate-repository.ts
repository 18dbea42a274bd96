import { scrubSecrets } from '../../errors';
import type { ForgeKind } from './forge';
import { ForgeLocationUnknown } from './forge-errors';

/** Where a repository's pull requests are: its host's API and the repository's names there. */
export type RepositoryLocation =
  | { kind: 'github' | 'gitea'; apiUrl: string; owner: string; repo: string }
  | { kind: 'gitlab'; apiUrl: string; projectPath: string }
  | {
      kind: 'azure-repos';
      /** The organization (or Azure DevOps Server collection): what the REST paths start from. */
      apiUrl: string;
      project: string;
      repo: string;
      /** The repository's page, under which each pull request has its page. */
      webUrl: string;
    };

const KNOWN_HOSTS: Record<string, ForgeKind> = {
  'github.com': 'github',
  'dev.azure.com': 'azure-repos',
  'gitlab.com': 'gitlab',
  'codeberg.org': 'gitea',
  'gitea.com': 'gitea',
};

function kindOf(url: URL): ForgeKind | undefined {
  const host = url.hostname.toLowerCase();
  if (KNOWN_HOSTS[host]) return KNOWN_HOSTS[host];
  if (host.endsWith('.visualstudio.com') || url.pathname.includes('/_git/')) return 'azure-repos';
  return undefined;
}

const trimSlashes = (path: string) => path.replace(/^\/+|\/+$/g, '');

/**
 * The host and names of the repository at `repositoryUrl` (its HTTPS clone URL):
 * - GitHub: `/{owner}/{repo}`; API at api.github.com, or `https://{host}/api/v3` (Enterprise Server).
 * - Gitea/Forgejo: `…/{owner}/{repo}` (an instance may live under a path); API `{instance}/api/v1`.
 * - GitLab: the whole path is the project (`group/sub/project`, sent URL-encoded as `:id`); API
 *   `https://{host}/api/v4`.
 * - Azure Repos: `https://dev.azure.com/{org}/{project}/_git/{repo}`, `https://{org}.visualstudio.com/
 *   [DefaultCollection/]{project}/_git/{repo}`, Azure DevOps Server `https://{host}/{collection}/
 *   {project}/_git/{repo}`; `/_git/{repo}` right after the organization is the project of that name.
 * `forge.kind` names a host the URL does not (a company's own GitLab or Gitea); `forge.apiUrl`
 * replaces the derived API base (for Azure Repos, the organization's or collection's URL).
 * @throws ForgeLocationUnknown naming what is missing
 */
export function locateRepository(
  repositoryUrl: string,
  forge?: { kind: ForgeKind; apiUrl?: string },
): RepositoryLocation {
  const unknown = (reason: string) => new ForgeLocationUnknown({ url: scrubSecrets(repositoryUrl), reason });
  let url: URL;
  try {
    url = new URL(repositoryUrl);
  } catch {
    throw unknown('not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw unknown('pull requests need the repository’s https URL');
  const kind = forge?.kind ?? kindOf(url);
  if (!kind) throw unknown(`${url.hostname} is not a host kubescribe knows; set the target's forge.kind`);
  const apiOverride = forge?.apiUrl?.replace(/\/+$/, '');
  let segments: string[];
  try {
    segments = trimSlashes(url.pathname)
      .replace(/\.git$/, '')
      .split('/')
      .filter(Boolean)
      .map(decodeURIComponent);
  } catch {
    throw unknown('its path is not validly percent-encoded');
  }

  if (kind === 'azure-repos') {
    const at = segments.indexOf('_git');
    const repo = segments[at + 1];
    if (at < 0 || !repo || segments.length !== at + 2)
      throw unknown('an Azure Repos URL ends in /_git/{repository}');
    const before = segments.slice(0, at);
    const host = url.hostname.toLowerCase();
    // the organization (dev.azure.com) or collection (DefaultCollection, a Server's) is not a project
    const rootDepth =
      host === 'dev.azure.com'
        ? 1
        : host.endsWith('.visualstudio.com')
          ? /^defaultcollection$/i.test(before[0] ?? '')
            ? 1
            : 0
          : Math.max(before.length - 1, 0);
    if (before.length < rootDepth || before.length > rootDepth + 1)
      throw unknown('an Azure Repos URL is {organization}/{project}/_git/{repository}');
    const project = before[rootDepth] ?? repo;
    const root = before.slice(0, rootDepth).map(encodeURIComponent).join('/');
    return {
      kind,
      apiUrl: apiOverride ?? `${url.origin}${root ? `/${root}` : ''}`,
      project,
      repo,
      webUrl: `${url.origin}/${segments.map(encodeURIComponent).join('/')}`,
    };
  }
  if (kind === 'gitlab') {
    // a GitLab under a relative URL (https://host/gitlab/...) is named by apiUrl; its prefix is no group
    const prefix = apiOverride ? trimSlashes(new URL(apiOverride).pathname.replace(/\/api\/v4$/, '')) : '';
    const path = segments.join('/');
    const projectPath = prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path;
    if (projectPath.split('/').length < 2) throw unknown('a GitLab URL is {group}/{project}');
    return { kind, apiUrl: apiOverride ?? `${url.origin}/api/v4`, projectPath };
  }
  const [owner, repo] = segments.slice(-2);
  if (!owner || !repo || (kind === 'github' && segments.length !== 2))
    throw unknown(`a ${kind === 'github' ? 'GitHub' : 'Gitea'} URL is {owner}/{repository}`);
  if (kind === 'github') {
    const derived =
      url.hostname.toLowerCase() === 'github.com' ? 'https://api.github.com' : `${url.origin}/api/v3`;
    return { kind, apiUrl: apiOverride ?? derived, owner, repo };
  }
  const instance = segments.slice(0, -2).map(encodeURIComponent).join('/');
  return {
    kind,
    apiUrl: apiOverride ?? `${url.origin}${instance ? `/${instance}` : ''}/api/v1`,
    owner,
    repo,
  };
}
