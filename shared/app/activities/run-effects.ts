import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PublicationResult } from '../../branch';
import { ensureError } from '../../errors';
import { parseRemote } from '../../git/parse-remote';
import { publish } from '../../git/publish';
import { readBranchHead } from '../../git/read-branch-head';
import type { GitAuth, GitRemote } from '../../git/types';
import { projectSaveStatus } from '../../kube/project-save-status';
import { batchPayloadReader } from '../../payloads/payload-batches';
import { type BranchEntityState, publicationInFlight } from '../entity/branch-operations';
import type { AppRuntime } from '../runtime/app-runtime';
import {
  type ProjectInput,
  type PublishInput,
  publishInputSchema,
  type ReadRemoteInput,
  readRemoteInputSchema,
} from './effect-inputs';
import type { ProjectionDone, RemoteHead } from './effect-results';
import { toGitWrites, toPublicationResult } from './git-writes';

/**
 * Where each branch keeps its Git object cache: a cache, so any local folder will do; losing it
 * costs one fetch. `KUBESCRIBE_GIT_CACHE` moves it (the app folder is read-only on Azure).
 */
export function gitCacheDir(env: Record<string, string | undefined>, branchKey: string): string {
  return join(env.KUBESCRIBE_GIT_CACHE || join(tmpdir(), 'kubescribe-git-cache'), branchKey);
}

/**
 * The `publish` activity: reads the writes of the attempt from the branch's stored state, lands
 * them on the remote (bounded), and says how it went. An attempt no longer in flight (its result
 * was recorded before this run: an activity can run twice) is answered as a transient failure,
 * which the branch ignores since it names a stale attempt.
 */
export async function runPublish(
  runtime: AppRuntime,
  rawInput: unknown,
  {
    env,
    readBranch,
  }: {
    env: Record<string, string | undefined>;
    readBranch: (branchKey: string) => Promise<BranchEntityState | undefined>;
  },
): Promise<PublicationResult> {
  const input: PublishInput = publishInputSchema.parse(rawInput);
  const state = await readBranch(input.branchKey);
  const inFlight = state ? publicationInFlight(state, input.attempt) : undefined;
  if (!inFlight)
    return { outcome: 'transient', cause: { message: `attempt ${input.attempt} is no longer in flight` } };
  const repository = repositoryOf(runtime, input.repository);
  let remote: GitRemote;
  try {
    remote = remoteOf(runtime, input.repository);
  } catch (error) {
    return { outcome: 'rejected', cause: { message: ensureError(error).message } };
  }
  const writes = await toGitWrites({
    writes: inFlight.effect.writes,
    committer: repository.committer,
    readPayload: batchPayloadReader(runtime.payloads),
    snapshotParts: inFlight.snapshotParts,
  });
  const limits = runtime.loaded.config.limits;
  const result = await publish({
    remote,
    branch: input.branch,
    ...(inFlight.effect.parentBranch ? { parentBranch: inFlight.effect.parentBranch } : {}),
    writes,
    cacheDir: gitCacheDir(env, input.branchKey),
    callTimeoutMs: limits.gitCallTimeoutMs,
    publishTimeoutMs: limits.publishTimeoutMs,
  });
  return toPublicationResult(result);
}

/** The `read-remote` activity: where a ref points (a parent probe, or an observation of the branch). */
export async function runReadRemote(runtime: AppRuntime, rawInput: unknown): Promise<RemoteHead> {
  const input: ReadRemoteInput = readRemoteInputSchema.parse(rawInput);
  let remote: GitRemote;
  try {
    remote = remoteOf(runtime, input.repository);
  } catch (error) {
    return { found: false, cause: ensureError(error).message };
  }
  const result = await readBranchHead({
    remote,
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

/**
 * The `project-status` activity: writes a resolved save's outcome to its CommitRequest in the
 * cluster it came from (the source whose `kubeconfigEnv` names a kubeconfig). A save from a
 * cluster kubescribe cannot reach is served over HTTP only: settled at once. Only a transient
 * failure asks the driver to try the same projection again later.
 */
export async function runProjectStatus(runtime: AppRuntime, input: ProjectInput): Promise<ProjectionDone> {
  const { effect } = input;
  const { request, status } = effect;
  const kubeconfig = request.cluster ? runtime.loaded.secrets.sourceKubeconfigs[request.cluster] : undefined;
  if (!kubeconfig || !request.uid) return { saveId: effect.saveId, settled: true };
  const projected = await projectSaveStatus({
    kubeconfig: kubeconfig.reveal(),
    request: { namespace: request.namespace, name: request.name, uid: request.uid },
    status: {
      phase: status.phase,
      ...(status.outcome ? { outcome: status.outcome } : {}),
      ...(status.commit ? { commit: status.commit } : {}),
      branch: input.branch,
      ...(status.message ? { message: status.message } : {}),
      conditions: status.conditions,
    },
  });
  return { saveId: effect.saveId, settled: projected.result !== 'Transient' };
}

function repositoryOf(runtime: AppRuntime, name: string) {
  const repository = runtime.loaded.config.repositories.find((candidate) => candidate.name === name);
  if (!repository) throw new Error(`repository "${name}" is no longer configured`);
  return repository;
}

function remoteOf(runtime: AppRuntime, name: string): GitRemote {
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
