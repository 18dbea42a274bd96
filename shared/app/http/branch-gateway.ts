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

/** A branch's state read through a cache; `forget` makes the next read of a branch fresh. */
export interface CachedBranchReader {
  (
    branchKey: string,
    read: (branchKey: string) => Promise<BranchEntityState | undefined>,
  ): Promise<BranchEntityState | undefined>;
  forget(branchKey: string): void;
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
}): CachedBranchReader {
  const cache = new Map<string, { atMs: number; state: Promise<BranchEntityState | undefined> }>();
  const cached = (branchKey: string, read: (branchKey: string) => Promise<BranchEntityState | undefined>) => {
    const hit = cache.get(branchKey);
    if (hit && nowMs() - hit.atMs < maxAgeMs) return hit.state;
    const state = read(branchKey);
    cache.set(branchKey, { atMs: nowMs(), state });
    state.catch(() => cache.delete(branchKey));
    return state;
  };
  return Object.assign(cached, { forget: (branchKey: string) => void cache.delete(branchKey) });
}

/**
 * Wakes a branch's driver for callers that each need a wake sent after they asked (their signal is
 * acknowledged, and the driver must plan after it), sharing one wake among those who ask together:
 * while a wake is on its way, every caller that asks waits for the one wake sent after it returns.
 * So each caller's wake is sent after its own call, as if it had sent it, and a burst of requests
 * to one branch sends two wakes, not one each (each wake costs the driver an episode, a plan and the
 * event on the backend).
 */
export function coalescedWakes(): (branchKey: string, wake: () => Promise<void>) => Promise<void> {
  const branches = new Map<string, { sending: Promise<void>; next?: Promise<void> }>();
  const send = (branchKey: string, wake: () => Promise<void>): Promise<void> => {
    const sending = wake().finally(() => {
      if (branches.get(branchKey)?.sending === sending) branches.delete(branchKey);
    });
    branches.set(branchKey, { sending });
    return sending;
  };
  return (branchKey, wake) => {
    const branch = branches.get(branchKey);
    if (!branch) return send(branchKey, wake);
    branch.next ??= branch.sending.then(
      () => send(branchKey, wake),
      () => send(branchKey, wake),
    );
    return branch.next;
  };
}

/**
 * How admission reaches a branch's state and driver: reads through the one-second cache, and wakes
 * shared among the admits that ask together (`coalescedWakes`). Once a wake returns, the branch is
 * read afresh: the window that wake was for is then likely recorded, and the admits that see it
 * open need no wake of their own, where a stale read would show none and wake again.
 */
export function branchAdmission({ nowMs }: { nowMs: () => number }): {
  read: CachedBranchReader;
  wake(branchKey: string, wake: () => Promise<void>): Promise<void>;
} {
  const read = cachedBranchReader({ nowMs });
  const together = coalescedWakes();
  return {
    read,
    wake: (branchKey, wake) =>
      together(branchKey, async () => {
        await wake();
        read.forget(branchKey);
      }),
  };
}
