import { z } from 'zod';
import type { PublicationResult } from '../../branch';
import { supersedes } from '../../branch/change-order';
import { WRITTEN_LISTED } from '../../branch/commands';
import type { RepositoryConfig } from '../../config';
import { ensureError } from '../../errors';
import type { GitCredentials } from '../../git/credentials';
import { publish } from '../../git/publish';
import type { GitRemote } from '../../git/types';
import { changeBatchReader } from '../../payloads/change-batches';
import { driverInputSchema } from '../driver/driver-input';
import { type BranchEntityState, publicationInFlight } from '../entity/branch-operations';
import { publishedKey, rememberedOrder } from '../entity/published-orders';
import type { AppRuntime } from '../runtime/app-runtime';
import { expandRuns } from './expand-runs';
import { toGitWrites, toPublicationResult } from './git-writes';
import { readRunMemory } from './published-run-memory';
import { BranchRebound, boundRepository, gitCacheDir, remoteOf } from './remote';
import type { RepositoryBusy } from './repository-admission';

/** The `publish` activity's input: the driver's branch and the attempt to publish (its writes are in the entity). */
export const publishInputSchema = driverInputSchema.extend({ attempt: z.string().min(1) });
export type PublishInput = z.infer<typeof publishInputSchema>;

/**
 * The `publish` activity: reads the writes of the attempt from the branch's stored state, lands
 * them on the remote (bounded), and says how it went. A branch the configuration no longer binds
 * to a repository (its URL changed) is answered `rejected` without a Git call: its work stays
 * pending, retried on the backoff, and its status says why. An attempt no longer in flight (its result
 * was recorded before this run: an activity can run twice) is answered as a transient failure,
 * which the branch ignores since it names a stale attempt. When the repository already has
 * `limits.repositoryConcurrency` Git activities in flight in this process, it answers
 * `RepositoryBusy` at once (repository-admission.ts): a remote whose calls hang cannot take every
 * activity slot.
 */
export async function runPublish(
  runtime: AppRuntime,
  rawInput: unknown,
  effects: PublishEffects,
): Promise<PublicationResult | RepositoryBusy> {
  const input: PublishInput = publishInputSchema.parse(rawInput);
  let repository: RepositoryConfig;
  let remote: GitRemote;
  let credentials: GitCredentials | undefined;
  try {
    repository = boundRepository(runtime, input);
    ({ remote, credentials } = remoteOf(runtime, repository));
  } catch (error) {
    if (error instanceof BranchRebound) effects.warn?.(error.message);
    return { outcome: 'rejected', cause: { message: ensureError(error).message } };
  }
  return runtime.gitAdmission.run(repository.url, runtime.loaded.config.limits.repositoryConcurrency, () =>
    land(runtime, input, { repository, remote, ...(credentials ? { credentials } : {}) }, effects),
  );
}

/** What the activity takes from its host: the environment, the branch's stored state, a log. */
interface PublishEffects {
  env: Record<string, string | undefined>;
  readBranch: (branchKey: string) => Promise<BranchEntityState | undefined>;
  /** Where a refused write or a held branch is logged, so an operator can see why. */
  warn?: (message: string) => void;
}

/** Lands the attempt's writes on the bound repository's remote. */
async function land(
  runtime: AppRuntime,
  input: PublishInput,
  {
    repository,
    remote,
    credentials,
  }: { repository: RepositoryConfig; remote: GitRemote; credentials?: GitCredentials },
  { env, readBranch, warn = () => {} }: PublishEffects,
): Promise<PublicationResult> {
  const state = await readBranch(input.branchKey);
  const inFlight = state ? publicationInFlight(state, input.attempt) : undefined;
  if (!inFlight)
    return { outcome: 'transient', cause: { message: `attempt ${input.attempt} is no longer in flight` } };
  const batches = changeBatchReader(runtime.payloads);
  const memory = runtime.feedMemory;
  const runMemory = memory ? await readRunMemory(memory, input.branchKey) : undefined;
  const expansion = await expandRuns({
    writes: inFlight.effect.writes,
    changesOf: batches.changesOf,
    publishedOrder: (target, path) => {
      const key = publishedKey(target, path);
      const inline = rememberedOrder(state?.published, key);
      const run = runMemory?.orderOf(key);
      return inline && run ? (supersedes(run, inline) ? run : inline) : (inline ?? run);
    },
  });
  for (const left of expansion.leftOut)
    if (left.reason === 'unsafe-path')
      warn(`write ${left.writeId}: ${left.detail}; the change is not published`);
  const writes = await toGitWrites({
    writes: expansion.writes,
    committer: repository.committer,
    readPayload: batches.readPayload,
    snapshotParts: inFlight.snapshotParts,
    pathsFor: (target: string) => runtime.targets.get(target)?.config.paths ?? 'native',
    ...(runtime.keyEscrow
      ? {
          secrets: {
            encryptionFor: (target: string) => runtime.targets.get(target)?.encryption,
            escrow: runtime.keyEscrow,
            written: (target: string, outcome: 'unchanged' | 'rewrapped' | 'kept', path: string) => {
              runtime.encryptionCounters.published(target, outcome);
              if (outcome === 'kept')
                warn(
                  `target ${target}: ${path} stays encrypted for its earlier recipients: kubescribe holds no data key for it; a resync of the Secret re-encrypts it`,
                );
            },
          },
        }
      : {}),
  });
  const limits = runtime.loaded.config.limits;
  const result = await publish({
    remote,
    ...(credentials ? { credentials } : {}),
    branch: input.branch,
    ...(inFlight.effect.parentBranch ? { parentBranch: inFlight.effect.parentBranch } : {}),
    // a proposed branch starts again from its base after its pull request ended, and is replayed on
    // its base when the base moved under the open one
    ...(inFlight.effect.restart
      ? { restartFromParent: true }
      : state?.branch.proposal
        ? { replayOnParent: true }
        : {}),
    writes,
    cacheDir: gitCacheDir(env, runtime.loaded.dataDir, input.branchKey),
    signer: runtime.loaded.secrets.repositorySigners?.[repository.name],
    callTimeoutMs: limits.gitCallTimeoutMs,
    publishTimeoutMs: limits.publishTimeoutMs,
  });
  if (result.kind === 'published' && runMemory && expansion.published.length > 0) {
    // the commits are pushed: their result is owed to the branch whatever becomes of the memory
    await runMemory
      .remember(runtime.nowMs(), expansion.published, result.commits)
      .catch((error: unknown) =>
        warn(
          `branch ${input.branch}: the orders of the published changes were not kept: ${ensureError(error).message}`,
        ),
      );
  }
  const answer = toPublicationResult(result);
  if (answer.outcome === 'published' || answer.outcome === 'settled') {
    const written = Object.fromEntries(
      [...expansion.written].filter(([id]) => typeof answer.commits[id] === 'string').slice(-WRITTEN_LISTED),
    );
    if (Object.keys(written).length > 0) return { ...answer, written };
  }
  if (result.kind === 'writeRefused')
    warn(
      `branch ${input.branch}: write ${result.writeId} can never be published and is set aside: ${result.cause}`,
    );
  return answer;
}
