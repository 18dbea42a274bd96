import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepositoryConfig } from '../../config';
import { parseRemote } from '../../git/parse-remote';
import type { GitAuth, GitRemote } from '../../git/types';
import type { AppRuntime } from '../runtime/app-runtime';

/**
 * Where each branch keeps its Git object cache: a cache, so any local folder will do; losing it
 * costs one fetch. `KUBESCRIBE_GIT_CACHE` moves it (the app folder is read-only on Azure).
 */
export function gitCacheDir(env: Record<string, string | undefined>, branchKey: string): string {
  return join(env.KUBESCRIBE_GIT_CACHE || join(tmpdir(), 'kubescribe-git-cache'), branchKey);
}

/** The configured repository a driver names; a driver can outlive its repository's configuration. */
export function repositoryOf(runtime: AppRuntime, name: string): RepositoryConfig {
  const repository = runtime.loaded.config.repositories.find((candidate) => candidate.name === name);
  if (!repository) throw new Error(`repository "${name}" is no longer configured`);
  return repository;
}

/** The Git remote of a configured repository, with its credential. Throws when the URL cannot be used. */
export function remoteOf(runtime: AppRuntime, name: string): GitRemote {
  const repository = repositoryOf(runtime, name);
  const token = runtime.loaded.secrets.repositoryTokens[name]?.reveal();
  const auth: GitAuth | undefined =
    token === undefined
      ? undefined
      : repository.auth?.username
        ? { username: repository.auth.username, token }
        : { bearer: token };
  return parseRemote({ url: repository.url, ...(auth ? { auth } : {}) });
}
