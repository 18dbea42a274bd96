/**
 * Where a repository's pull requests are, from the HTTPS URL its Git remote is configured with:
 * the clone URL forms each host documents (GitHub and GitHub Enterprise Server, Azure Repos'
 * dev.azure.com and visualstudio.com forms and Azure DevOps Server collections, GitLab groups and
 * subgroups, Gitea/Forgejo instances under a path).
 */
import { ForgeLocationUnknown } from '../../../../shared/git/forges/forge-errors';
import { locateRepository } from '../../../../shared/git/forges/locate-repository';

describe('locateRepository', () => {
  it.each([
    [
      'https://github.com/acme/fleet.git',
      undefined,
      { kind: 'github', apiUrl: 'https://api.github.com', owner: 'acme', repo: 'fleet' },
    ],
    [
      'https://github.com/acme/fleet/',
      undefined,
      { kind: 'github', apiUrl: 'https://api.github.com', owner: 'acme', repo: 'fleet' },
    ],
    [
      'https://ghe.acme.com/acme/fleet',
      { kind: 'github' },
      { kind: 'github', apiUrl: 'https://ghe.acme.com/api/v3', owner: 'acme', repo: 'fleet' },
    ],
    [
      'https://dev.azure.com/acme/platform/_git/fleet',
      undefined,
      {
        kind: 'azure-repos',
        apiUrl: 'https://dev.azure.com/acme',
        project: 'platform',
        repo: 'fleet',
        webUrl: 'https://dev.azure.com/acme/platform/_git/fleet',
      },
    ],
    [
      'https://acme@dev.azure.com/acme/My%20Project/_git/fleet',
      undefined,
      {
        kind: 'azure-repos',
        apiUrl: 'https://dev.azure.com/acme',
        project: 'My Project',
        repo: 'fleet',
        webUrl: 'https://dev.azure.com/acme/My%20Project/_git/fleet',
      },
    ],
    [
      'https://dev.azure.com/acme/_git/fleet',
      undefined,
      {
        kind: 'azure-repos',
        apiUrl: 'https://dev.azure.com/acme',
        project: 'fleet',
        repo: 'fleet',
        webUrl: 'https://dev.azure.com/acme/_git/fleet',
      },
    ],
    [
      'https://acme.visualstudio.com/platform/_git/fleet',
      undefined,
      {
        kind: 'azure-repos',
        apiUrl: 'https://acme.visualstudio.com',
        project: 'platform',
        repo: 'fleet',
        webUrl: 'https://acme.visualstudio.com/platform/_git/fleet',
      },
    ],
    [
      'https://acme.visualstudio.com/DefaultCollection/platform/_git/fleet',
      undefined,
      {
        kind: 'azure-repos',
        apiUrl: 'https://acme.visualstudio.com/DefaultCollection',
        project: 'platform',
        repo: 'fleet',
        webUrl: 'https://acme.visualstudio.com/DefaultCollection/platform/_git/fleet',
      },
    ],
    [
      'https://tfs.acme.local/tfs/Main/platform/_git/fleet',
      undefined,
      {
        kind: 'azure-repos',
        apiUrl: 'https://tfs.acme.local/tfs/Main',
        project: 'platform',
        repo: 'fleet',
        webUrl: 'https://tfs.acme.local/tfs/Main/platform/_git/fleet',
      },
    ],
    [
      'https://gitlab.com/acme/platform/fleet.git',
      undefined,
      { kind: 'gitlab', apiUrl: 'https://gitlab.com/api/v4', projectPath: 'acme/platform/fleet' },
    ],
    [
      'https://git.acme.com/acme/fleet.git',
      { kind: 'gitlab' },
      { kind: 'gitlab', apiUrl: 'https://git.acme.com/api/v4', projectPath: 'acme/fleet' },
    ],
    [
      'https://acme.com/gitlab/acme/fleet.git',
      { kind: 'gitlab', apiUrl: 'https://acme.com/gitlab/api/v4/' },
      { kind: 'gitlab', apiUrl: 'https://acme.com/gitlab/api/v4', projectPath: 'acme/fleet' },
    ],
    [
      'https://codeberg.org/acme/fleet.git',
      undefined,
      { kind: 'gitea', apiUrl: 'https://codeberg.org/api/v1', owner: 'acme', repo: 'fleet' },
    ],
    [
      'https://acme.com/git/acme/fleet',
      { kind: 'gitea' },
      { kind: 'gitea', apiUrl: 'https://acme.com/git/api/v1', owner: 'acme', repo: 'fleet' },
    ],
    [
      'https://github.com/acme/fleet',
      { kind: 'github', apiUrl: 'http://127.0.0.1:4000/' },
      { kind: 'github', apiUrl: 'http://127.0.0.1:4000', owner: 'acme', repo: 'fleet' },
    ],
  ] as const)('%s (%j)', (url, forge, expected) => {
    expect(locateRepository(url, forge)).toEqual(expected);
  });

  it.each([
    [
      'https://git.acme.com/acme/fleet.git',
      undefined,
      /not a host kubescribe knows; set the target's forge.kind/,
    ],
    ['https://github.com/acme/fleet/tree/main', undefined, /a GitHub URL is \{owner\}\/\{repository\}/],
    [
      'https://dev.azure.com/acme/platform/fleet',
      { kind: 'azure-repos' as const },
      /ends in \/_git\/\{repository\}/,
    ],
    ['https://dev.azure.com/acme/a/b/_git/fleet', undefined, /\{organization\}\/\{project\}\/_git/],
    ['https://gitlab.com/fleet', undefined, /a GitLab URL is \{group\}\/\{project\}/],
    ['git@github.com:acme/fleet.git', undefined, /not a URL|https URL/],
    ['ssh://git@github.com/acme/fleet.git', undefined, /https URL/],
    ['https://github.com/acme/%E0%A4%A', undefined, /percent-encoded/],
  ])('refuses %s, saying why', (url, forge, reason) => {
    const refuse = () => locateRepository(url, forge);
    expect(refuse).toThrow(ForgeLocationUnknown);
    expect(refuse).toThrow(reason);
  });
});
