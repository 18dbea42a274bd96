import { z } from 'zod';
import type { BranchEffect } from '../../branch';
import { type PullRequestResult, pullRequestResultSchema } from '../../branch/commands';
import { FAILURE_KINDS, type PullRequestFailure } from '../../branch/publication-outcome';
import type { RepositoryConfig } from '../../config';
import { ensureError, scrubSecrets } from '../../errors';
import { fixedCredentials, type GitCredentials } from '../../git/credentials';
import type { Forge, OpenForgeInput, PullRequest } from '../../git/forges/forge';
import { type ForgeFailure, forgeFailure } from '../../git/forges/forge-errors';
import { emit } from '../../telemetry/bus';
import { driverInputSchema } from '../driver/driver-input';
import type { AppRuntime } from '../runtime/app-runtime';
import { boundRepository, remoteOf } from './remote';

type PullRequestEffect = Extract<BranchEffect, { type: 'pull-request' }>;

const pullRequestEffectSchema = z.strictObject({
  type: z.literal('pull-request'),
  request: z.string().min(1),
  action: z.enum(['sync', 'read']),
  base: z.string().min(1),
  pullRequest: z.number().int().nonnegative().optional(),
  text: z.strictObject({ title: z.string().min(1), description: z.string() }),
}) satisfies z.ZodType<PullRequestEffect>;

/** The `pull-request` activity's input: the driver's branch (the proposed one) and the call the branch owes. */
export const pullRequestInputSchema = driverInputSchema.extend({ effect: pullRequestEffectSchema });
export type PullRequestInput = z.infer<typeof pullRequestInputSchema>;

/** How the activity reaches the repository's host (`openForge`; a test passes its own). */
export type OpenForge = (input: OpenForgeInput) => Forge;

/**
 * The `pull-request` activity: opens or updates the branch's one pull request into its base, or
 * reads it to see it merged or closed, with the repository's own credentials. Safe to run again
 * after a lost reply: an open pull request from the branch is looked for before one is opened, and
 * one the branch knows is read before it is updated (an ended one is answered, never reopened).
 * Every failure is an answer (`failed`), classified as a push's is: the branch retries it after the
 * host's `Retry-After` or its poll interval, and shows a refused token as the repository's.
 */
export async function runPullRequest(
  runtime: AppRuntime,
  rawInput: unknown,
  openForge: OpenForge,
): Promise<PullRequestResult> {
  const result = await askHost(runtime, pullRequestInputSchema.parse(rawInput), openForge);
  emit({
    type: 'PullRequestCalled',
    outcome: result.outcome === 'failed' ? FAILURE_KINDS[result.kind ?? 'transient'] : result.outcome,
  });
  return result;
}

async function askHost(
  runtime: AppRuntime,
  input: PullRequestInput,
  openForge: OpenForge,
): Promise<PullRequestResult> {
  // every token handed to the host's client, masked in any answer a host echoed it in
  const handed = new Set<string>();
  const failed = (kind: PullRequestFailure, cause: string, retryAfterMs?: number): PullRequestResult => {
    let message = scrubSecrets(cause.replace(/\s+/g, ' ').trim());
    for (const token of handed) message = message.split(token).join('***');
    return {
      outcome: 'failed',
      kind,
      cause: { message: message.slice(0, 300) },
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  };
  let bound: { repository: RepositoryConfig } & ReturnType<typeof remoteOf>;
  try {
    const repository = boundRepository(runtime, input);
    bound = { repository, ...remoteOf(runtime, repository) };
  } catch (error) {
    // a rebound or unusable repository: the same call meets the same until the configuration changes
    return failed('rejected', ensureError(error).message);
  }
  const { repository, remote, credentials } = bound;
  // the configuration check refuses both at start; a configuration changed under a running driver is refused here
  if (remote.kind !== 'http')
    return failed(
      'rejected',
      `repository "${repository.name}" is a local path: it has no host to open a pull request on`,
    );
  const given: GitCredentials | undefined =
    credentials ?? (remote.auth ? fixedCredentials(remote.auth) : undefined);
  if (!given)
    return failed(
      'rejected',
      `repository "${repository.name}" has no auth: its host's API is called with the repository's token`,
    );
  const access: GitCredentials = {
    current: async (args) => {
      const auth = await given.current(args);
      handed.add('bearer' in auth ? auth.bearer : auth.token);
      return auth;
    },
    refused: (auth) => given.refused(auth),
  };
  try {
    const forge = openForge({
      repositoryUrl: repository.url,
      ...(repository.forge ? { forge: repository.forge } : {}),
      credentials: access,
    });
    const pullRequest = await call(forge, input.branch, input.effect);
    const answer = pullRequestResultSchema.safeParse(answerOf(pullRequest));
    // asking again reads the same answer
    if (!answer.success)
      return failed(
        'rejected',
        `the host's answer is not a pull request: ${answer.error.issues[0]?.message}`,
      );
    return answer.data;
  } catch (error) {
    const failure = forgeFailure(error);
    return failed(FAILURE_OF[failure.outcome], failure.cause, failure.retryAfterMs);
  }
}

/** A forge's failure in the branch's words: a refused token is the repository's credentials refused, as for a push. */
const FAILURE_OF = {
  transient: 'transient',
  rejected: 'rejected',
  authFailed: 'credentialsRefused',
} as const satisfies Record<ForgeFailure['outcome'], PullRequestFailure>;

async function call(forge: Forge, head: string, effect: PullRequestInput['effect']): Promise<PullRequest> {
  if (effect.action === 'read') {
    if (effect.pullRequest === undefined) throw new Error('no pull request to read');
    return forge.read(effect.pullRequest);
  }
  if (effect.pullRequest !== undefined) {
    const known = await forge.read(effect.pullRequest);
    return known.state === 'open' ? forge.update(known.number, effect.text) : known;
  }
  const open = await forge.findOpen(head, effect.base);
  return open ? forge.update(open.number, effect.text) : forge.open(head, effect.base, effect.text);
}

function answerOf(pullRequest: PullRequest): PullRequestResult {
  const ref = { number: pullRequest.number, url: pullRequest.url };
  if (pullRequest.state !== 'merged') return { outcome: pullRequest.state, pullRequest: ref };
  return {
    outcome: 'merged',
    pullRequest: { ...ref, ...(pullRequest.mergeCommit ? { mergeCommit: pullRequest.mergeCommit } : {}) },
  };
}
