import type { WithdrawAnswer } from '../../branch';
import type { DriverInput } from '../driver/driver-input';
import type { BranchEntityState, BranchOperationName } from '../entity/branch-operations';

/**
 * How the HTTP layer reaches a branch: read its last stored state, signal its entity, make sure
 * its driver runs, and ask it to withdraw a save (the one question that needs the branch's answer).
 * Implemented over the Durable Functions client in `functions/`.
 */
export interface BranchGateway {
  read(branchKey: string): Promise<BranchEntityState | undefined>;
  /** The branch's stored state read now, past any cache: what a client reads back after its own write. */
  readNow(branchKey: string): Promise<BranchEntityState | undefined>;
  signal(branchKey: string, operation: BranchOperationName, input: unknown): Promise<void>;
  ensureDriver(input: DriverInput): Promise<void>;
  withdraw(input: { branchKey: string; saveId: string; at: string; target: string }): Promise<WithdrawAnswer>;
  /**
   * The history events of the branch's driver's current execution, as the durable client's status
   * shows them (`showHistory`); undefined when no driver has run.
   */
  driverHistory(branchKey: string): Promise<unknown[] | undefined>;
}

/**
 * Reads a branch's state through a cache of at most `maxAgeMs` per branch, so admission under
 * load costs one entity read a second, not one a request (docs/architecture.md, "Admit").
 */
export function cachedBranchReader({
  maxAgeMs = 1000,
  nowMs,
}: {
  maxAgeMs?: number;
  nowMs: () => number;
}): (
  branchKey: string,
  read: (branchKey: string) => Promise<BranchEntityState | undefined>,
) => Promise<BranchEntityState | undefined> {
  const cache = new Map<string, { atMs: number; state: Promise<BranchEntityState | undefined> }>();
  return (branchKey, read) => {
    const hit = cache.get(branchKey);
    if (hit && nowMs() - hit.atMs < maxAgeMs) return hit.state;
    const state = read(branchKey);
    cache.set(branchKey, { atMs: nowMs(), state });
    state.catch(() => cache.delete(branchKey));
    return state;
  };
}
