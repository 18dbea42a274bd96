import { classifyFailure, type FailureResult } from './classify-failure';
import type { GitCredentials } from './credentials';
import { openHttpSession } from './open-http-session';
import { openLocalSession } from './open-local-session';
import { type Clock, type GitRemote, GitRemoteSchema, systemClock } from './types';

export type BranchHead =
  | { kind: 'found'; head: string; defaultBranch: string | null }
  | { kind: 'missing'; defaultBranch: string | null; empty: boolean }
  | FailureResult;

/**
 * Reads where `branch` points on the remote (one bounded ref advertisement; nothing is fetched or
 * written). The driver uses it to observe the remote and to probe for a missing parent branch.
 */
export async function readBranchHead({
  remote,
  branch,
  clock = systemClock,
  callTimeoutMs = 120_000,
  signal,
  credentials,
}: {
  remote: GitRemote;
  /** A provider of expiring tokens, used instead of `remote.auth`. */
  credentials?: GitCredentials;
  branch: string;
  clock?: Clock;
  callTimeoutMs?: number;
  signal?: AbortSignal;
}): Promise<BranchHead> {
  const checked = GitRemoteSchema.parse(remote);
  const common = { clock, callTimeoutMs, ...(signal ? { signal } : {}) };
  const session =
    checked.kind === 'http'
      ? openHttpSession({ remote: checked, branch, ...common, ...(credentials ? { credentials } : {}) })
      : openLocalSession({ remote: checked, ...common });
  try {
    const ad = await session.advertise({ step: 'advertise' });
    const head = ad.heads.get(branch);
    return head
      ? { kind: 'found', head, defaultBranch: ad.defaultBranch }
      : { kind: 'missing', defaultBranch: ad.defaultBranch, empty: ad.empty };
  } catch (error) {
    return classifyFailure({ error, step: 'advertise' });
  }
}
