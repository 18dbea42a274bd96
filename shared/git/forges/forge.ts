import { packageVersion } from '../../package-version';
import type { GitCredentials } from '../credentials';
import { type Clock, systemClock } from '../types';
import { adoptingExisting } from './adopt-existing';
import { azureReposForge } from './azure-repos';
import type { ForgeHttpOptions } from './forge-http';
import { giteaForge } from './gitea';
import { githubForge } from './github';
import { gitlabForge } from './gitlab';
import { locateRepository } from './locate-repository';

export type ForgeKind = 'github' | 'azure-repos' | 'gitlab' | 'gitea';

/** A pull request (GitLab: merge request) as kubescribe tracks it. */
export interface PullRequest {
  /** The host's number for it (GitHub/Gitea number, Azure Repos pullRequestId, GitLab iid). */
  number: number;
  /** The page a person opens (html_url / web_url / the Azure Repos web URL). */
  url: string;
  state: 'open' | 'merged' | 'closed';
  /** The commit the merge made on the base branch, once merged. */
  mergeCommit?: string;
  head: string; // branch name, no refs/heads/
  base: string;
}

export interface PullRequestText {
  title: string;
  description: string;
}

/**
 * One repository's pull requests on its host. Every method is bounded in time and throws, as a Git
 * call does (see `forgeFailure` for the one classification):
 * - `GitHttpRefused` for an HTTP answer other than success: `authFailed` (401/403, after the
 *   credentials were asked once more), `transient` (408/429/5xx, with `Retry-After`), `rejected`
 *   (404, 422 and the rest, with what the host said);
 * - `ForgeCallTimedOut` when the host did not answer in time (transient);
 * - `ForgeAnswerUnreadable` when the host answered success with a body that is not what its API
 *   documents (rejected: retrying the same call reads the same body);
 * - a network error (transient).
 */
export interface Forge {
  readonly kind: ForgeKind;
  /** The open pull request from `head` into `base`, if any. */
  findOpen(head: string, base: string): Promise<PullRequest | undefined>;
  open(head: string, base: string, text: PullRequestText): Promise<PullRequest>;
  update(number: number, text: PullRequestText): Promise<PullRequest>;
  read(number: number): Promise<PullRequest>;
}

export type OpenForgeInput = {
  /** The repository's HTTPS URL, as configured for Git. */
  repositoryUrl: string;
  /** The target's `forge` setting: the host kind when the URL does not say it, and its API's base URL. */
  forge?: { kind: ForgeKind; apiUrl?: string };
  /** The repository's own HTTPS credentials (the ones its pushes use). */
  credentials: GitCredentials;
  fetch?: typeof fetch;
  userAgent?: string;
  /** Where each call's deadline is armed (tests drive it). */
  clock?: Clock;
  /** How long one call may take, credentials and answer included. */
  timeoutMs?: number;
};

/** Long enough for a slow host's answer, short enough that the driver's schedule is not held up. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Picks the host from the repository URL and optional config override; credentials are the
 * repository's own.
 * @throws ForgeLocationUnknown when the URL names no known host and no `forge.kind` is set, or does
 *   not say where the repository is on it
 */
export function openForge(input: OpenForgeInput): Forge {
  const location = locateRepository(input.repositoryUrl, input.forge);
  const http: Omit<ForgeHttpOptions, 'authHeaders' | 'headers' | 'reclassify'> = {
    credentials: input.credentials,
    fetch: input.fetch ?? fetch,
    userAgent: input.userAgent ?? `kubescribe/${packageVersion()}`,
    clock: input.clock ?? systemClock,
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  switch (location.kind) {
    case 'github':
      return adoptingExisting(githubForge({ ...location, http }));
    case 'azure-repos':
      return adoptingExisting(azureReposForge({ ...location, http }));
    case 'gitlab':
      return adoptingExisting(gitlabForge({ ...location, http }));
    case 'gitea':
      return adoptingExisting(giteaForge({ ...location, http }));
  }
}
