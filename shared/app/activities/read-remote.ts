import { z } from 'zod';
import type { RepositoryConfig } from '../../config';
import { ensureError } from '../../errors';
import type { GitCredentials } from '../../git/credentials';
import { readBranchHead } from '../../git/read-branch-head';
import type { GitRemote } from '../../git/types';
import { driverInputSchema } from '../driver/driver-input';
import type { AppRuntime } from '../runtime/app-runtime';
import { boundRepository, remoteOf } from './remote';
import type { RepositoryBusy } from './repository-admission';

/** The `read-remote` activity's input: which ref to read (null: the remote's default branch). */
export const readRemoteInputSchema = driverInputSchema.extend({ ref: z.string().min(1).nullable() });
export type ReadRemoteInput = z.infer<typeof readRemoteInputSchema>;

/** What the `read-remote` activity answers: whether the ref exists, its head, or why it could not tell. */
export interface RemoteHead {
  found: boolean;
  head?: string;
  cause?: string;
}

/**
 * The `read-remote` activity: where a ref points (a parent probe, or an observation of the branch).
 * A branch no repository is bound to any more reads nothing: another repository's head is no base.
 * Held to `limits.repositoryConcurrency` like a publication (`RepositoryBusy`: not read, ask again).
 */
export async function runReadRemote(
  runtime: AppRuntime,
  rawInput: unknown,
): Promise<RemoteHead | RepositoryBusy> {
  const input: ReadRemoteInput = readRemoteInputSchema.parse(rawInput);
  let repository: RepositoryConfig;
  let remote: GitRemote;
  let credentials: GitCredentials | undefined;
  try {
    repository = boundRepository(runtime, input);
    ({ remote, credentials } = remoteOf(runtime, repository));
  } catch (error) {
    return { found: false, cause: ensureError(error).message };
  }
  const { repositoryConcurrency } = runtime.loaded.config.limits;
  return runtime.gitAdmission.run(repository.url, repositoryConcurrency, () =>
    readHead(runtime, input, remote, credentials),
  );
}

async function readHead(
  runtime: AppRuntime,
  input: ReadRemoteInput,
  remote: GitRemote,
  credentials: GitCredentials | undefined,
): Promise<RemoteHead> {
  const result = await readBranchHead({
    remote,
    ...(credentials ? { credentials } : {}),
    branch: input.ref ?? input.branch,
    callTimeoutMs: runtime.loaded.config.limits.gitCallTimeoutMs,
  });
  switch (result.kind) {
    case 'found':
      return { found: true, head: result.head };
    case 'missing':
      // With no parent named, a branch starts from the default branch, or from nothing in an empty repository.
      return { found: input.ref === null && (result.empty || result.defaultBranch !== null) };
    default:
      return { found: false, cause: 'cause' in result ? String(result.cause) : result.kind };
  }
}
