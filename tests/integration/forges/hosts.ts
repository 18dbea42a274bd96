import type { GitCredentials } from '../../../shared/git/credentials';
import { type ForgeKind, openForge } from '../../../shared/git/forges/forge';
import type { Clock, GitAuth } from '../../../shared/git/types';
import { startAzureReposEmulator } from '../../support/forges/azure-repos-emulator';
import { startGiteaEmulator } from '../../support/forges/gitea-emulator';
import { startGitHubEmulator } from '../../support/forges/github-emulator';
import { startGitLabEmulator } from '../../support/forges/gitlab-emulator';
import type { PullControls } from '../../support/forges/pull-store';
import type { RestServer } from '../../support/forges/serve-rest';

export type Emulator = RestServer & PullControls & { rotate(token: string): void };

/** One host as the tests drive it: its emulator, and the repository and settings that reach it. */
export type Host = {
  kind: ForgeKind;
  start(token: string): Promise<Emulator>;
  /** The repository's HTTPS URL as a user configures it. */
  repositoryUrl: string;
  /** `forge.apiUrl` pointing at the emulator. */
  apiUrl(emulator: Emulator): string;
  /** The credentials as the repository's Git configuration holds them for this host. */
  auth(token: string): GitAuth;
  /** The description limit the host documents. */
  descriptionLimit: number;
};

export const HOSTS: Host[] = [
  {
    kind: 'github',
    start: (token) => startGitHubEmulator({ token }),
    repositoryUrl: 'https://github.com/acme/fleet.git',
    apiUrl: (emulator) => emulator.url,
    auth: (token) => ({ username: 'x-access-token', token }),
    descriptionLimit: 65_536,
  },
  {
    kind: 'azure-repos',
    start: (token) => startAzureReposEmulator({ token }),
    repositoryUrl: 'https://dev.azure.com/acme/platform/_git/fleet',
    apiUrl: (emulator) => `${emulator.url}/acme`,
    auth: (token) => ({ username: 'kubescribe', token }),
    descriptionLimit: 4_000,
  },
  {
    kind: 'gitlab',
    start: (token) => startGitLabEmulator({ token }),
    repositoryUrl: 'https://gitlab.example.com/acme/platform/fleet.git',
    apiUrl: (emulator) => `${emulator.url}/api/v4`,
    auth: (token) => ({ username: 'kubescribe', token }),
    descriptionLimit: 1_048_576,
  },
  {
    kind: 'gitea',
    start: (token) => startGiteaEmulator({ token }),
    repositoryUrl: 'https://codeberg.org/acme/fleet.git',
    apiUrl: (emulator) => `${emulator.url}/api/v1`,
    auth: (token) => ({ username: 'kubescribe', token }),
    descriptionLimit: 65_536,
  },
];

/** Credentials that answer `tokens` in turn, each time the host refused the one before. */
export function rotatingCredentials(host: Host, tokens: string[]): GitCredentials & { asked: number } {
  let at = 0;
  const credentials = {
    asked: 0,
    current: async () => {
      credentials.asked += 1;
      return host.auth(tokens[at] ?? '');
    },
    refused: () => {
      at += 1;
      return at < tokens.length;
    },
  };
  return credentials;
}

/** A forge on `host` through its emulator, with the repository's fixed token. */
export function forgeOn(
  host: Host,
  emulator: Emulator,
  options: { token?: string; clock?: Clock; timeoutMs?: number } = {},
) {
  return openForge({
    repositoryUrl: host.repositoryUrl,
    forge: { kind: host.kind, apiUrl: host.apiUrl(emulator) },
    credentials: rotatingCredentials(host, [options.token ?? 'the-token']),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}
