import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultAzureCredential } from '@azure/identity';
import type { RepositoryConfig } from '../../config';
import { azureDevOpsCredentials } from '../../git/azure-devops-credentials';
import type { GitCredentials } from '../../git/credentials';
import { fileTokenCredentials } from '../../git/file-token-credentials';
import { githubAppCredentials } from '../../git/github-app-credentials';
import { parseRemote } from '../../git/parse-remote';
import { type GitAuth, type GitRemote, systemClock } from '../../git/types';
import type { DriverInput } from '../driver/driver-input';
import type { AppRuntime } from '../runtime/app-runtime';
import { branchKeyFor, repositoryForDisplay } from '../runtime/branch-key';
import { onFunctionsHost } from '../runtime/hosting';

/**
 * Where each branch keeps its Git object cache: a cache, so losing it costs one fetch, but what it
 * holds is read into commits, so it lives where only kubescribe writes: under the data folder
 * (private, 0700) on the embedded host, not at a predictable path in a shared `/tmp` another user
 * could prepare. On the Functions host the app folder is read-only and the temporary folder is the
 * instance's own. `KUBESCRIBE_GIT_CACHE` moves it.
 */
export function gitCacheDir(
  env: Record<string, string | undefined>,
  dataDir: string,
  branchKey: string,
): string {
  const root =
    env.KUBESCRIBE_GIT_CACHE ||
    (onFunctionsHost(env) ? join(tmpdir(), 'kubescribe-git-cache') : join(dataDir, 'git-cache'));
  return join(root, branchKey);
}

/** The configuration no longer binds a driver's branch key to any repository: its work is held. */
export class BranchRebound extends Error {}

/**
 * The configured repository a driver publishes to: the one it was started with while its URL still
 * maps, with the driver's branch, to the driver's branch key; else any repository whose URL does
 * (the old URL kept under another name, to publish held work where it belongs). A repository name
 * alone never binds: after its URL changed it names another repository, and publishing the old
 * branch's work there would put it under a binding it was never admitted for.
 * @throws BranchRebound when no configured repository maps to the branch key
 */
export function boundRepository(runtime: AppRuntime, input: DriverInput): RepositoryConfig {
  const repositories = runtime.loaded.config.repositories;
  const maps = (repository: RepositoryConfig) =>
    branchKeyFor(repository.url, input.branch).key === input.branchKey;
  const named = repositories.find((candidate) => candidate.name === input.repository);
  if (named && maps(named)) return named;
  const kept = repositories.find(maps);
  if (kept) return kept;
  const now = named
    ? `repository "${input.repository}" now points at ${repositoryForDisplay(named.url)}`
    : `repository "${input.repository}" is no longer configured`;
  throw new BranchRebound(
    `branch "${input.branch}" (${input.branchKey}) is held: ${now}, which is not where its pending work was admitted; ` +
      'it publishes nowhere until a configured repository has its old URL again (docs/configuration.md, "Rebinding a target")',
  );
}

/**
 * The Git remote of a configured repository, with its credentials: a static token as the remote's
 * `auth`, or a provider of expiring tokens (`credentials`). Throws when the URL cannot be used.
 */
export function remoteOf(
  runtime: AppRuntime,
  repository: RepositoryConfig,
): { remote: GitRemote; credentials?: GitCredentials } {
  const token = runtime.loaded.secrets.repositoryTokens[repository.name]?.reveal();
  const auth: GitAuth | undefined =
    token === undefined || repository.auth?.kind !== 'static' || repository.auth.tokenFile !== undefined
      ? undefined
      : repository.auth.username
        ? { username: repository.auth.username, token }
        : { bearer: token };
  const remote = parseRemote({ url: repository.url, ...(auth ? { auth } : {}) });
  const credentials = expiringCredentialsOf(runtime, repository);
  return credentials ? { remote, credentials } : { remote };
}

/** One provider per repository and process: its token is shared by every branch publishing there. */
const providers = new WeakMap<AppRuntime, Map<string, GitCredentials>>();

function expiringCredentialsOf(
  runtime: AppRuntime,
  repository: RepositoryConfig,
): GitCredentials | undefined {
  const auth = repository.auth;
  if (!auth) return undefined;
  if (auth.kind === 'static') {
    if (auth.tokenFile === undefined) return undefined;
    return fileTokenCredentials({
      file: auth.tokenFile,
      ...(auth.username ? { username: auth.username } : {}),
    });
  }
  const known = providers.get(runtime) ?? new Map<string, GitCredentials>();
  providers.set(runtime, known);
  const key = `${repository.name}\n${JSON.stringify(auth)}`;
  let credentials = known.get(key);
  if (!credentials) {
    credentials =
      auth.kind === 'azure-identity'
        ? azureDevOpsCredentials({
            // the app's managed identity on Azure (AZURE_CLIENT_ID picks a user-assigned one), a
            // workload identity on Kubernetes, or a developer's Azure CLI login
            credential: new DefaultAzureCredential(
              auth.clientId
                ? { managedIdentityClientId: auth.clientId, workloadIdentityClientId: auth.clientId }
                : {},
            ),
            clock: systemClock,
          })
        : githubAppCredentials({
            appId: auth.appId,
            installationId: auth.installationId,
            privateKeyPem: runtime.loaded.secrets.repositoryAppKeys![repository.name]!.reveal(),
            apiUrl: auth.apiUrl,
            clock: systemClock,
          });
    known.set(key, credentials);
  }
  return credentials;
}
