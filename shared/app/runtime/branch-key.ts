import { createHash } from 'node:crypto';

/**
 * A repository branch's identity: the normalized repository URL plus the write branch. Several
 * targets may share it. `key` is safe as a durable entity key and inside an instance id (no `/`,
 * `\`, `?`, `#`, `@`), short, and stable across restarts and hosts.
 */
export interface BranchKey {
  key: string;
  repository: string;
  branch: string;
}

export function branchKeyFor(repositoryUrl: string, branch: string): BranchKey {
  const repository = normalizeRepositoryUrl(repositoryUrl);
  const digest = createHash('sha256').update(`${repository}\n${branch}`).digest('hex').slice(0, 24);
  return { key: `b-${digest}`, repository, branch };
}

/**
 * Two spellings of one remote must map to one branch owner, else two writers race on one ref:
 * lowercase scheme and host, no credentials, no trailing slash or `.git`.
 */
export function normalizeRepositoryUrl(url: string): string {
  const trimmed = url.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return trimmed.replace(/\/+$/, '').replace(/\.git$/, '');
  const parsed = new URL(trimmed);
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  parsed.search = '';
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  return `${parsed.protocol}//${parsed.host.toLowerCase()}${path}`;
}

/**
 * The repository as a status shows it: as configured, so that a local folder named `state.git` is
 * shown as that folder, not as the key's spelling (`…/state`) of a folder that does not exist. A
 * URL loses only what must never be shown: credentials, a query, a fragment.
 */
export function repositoryForDisplay(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim())) return url;
  const parsed = new URL(url.trim());
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  parsed.search = '';
  return parsed.toString();
}
