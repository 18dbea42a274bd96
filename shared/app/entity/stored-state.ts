import { initialState } from '../../branch';
import type { BranchEntityState } from './branch-operations';

/** The branch state version this code writes. */
export const BRANCH_STATE_VERSION = 3;

/**
 * Readers of every branch state version a release has written, each to the next. 0.1.0 wrote
 * version 2, the first one released; a version added later gets its reader from the one before.
 */
const UPGRADES: Record<number, (state: BranchEntityState) => BranchEntityState> = {
  // 0.1.0 and 0.2.0 wrote version 2: no target was ever suspended.
  2: (state) => ({ ...state, branch: { ...state.branch, version: 3, suspended: {} } }),
};

export type StoredStateReading = { ok: true; state: BranchEntityState } | { ok: false; error: string };

/**
 * The entity's stored state as this code reads it: nothing yet (a new branch), the current
 * version, an earlier released one upgraded step by step, or a newer one (written by a later
 * release while both run during a deployment), read as this version: a later release only adds
 * fields and keeps the meaning of these (docs/upgrades.md), so an operation is never dropped for
 * it. Every operation derives the state it writes from the one it read (spreads, never a rebuild),
 * so the later version and its fields are written back as they were.
 */
export function readStoredState(stored: unknown): StoredStateReading {
  if (stored === undefined || stored === null)
    return { ok: true, state: { branch: initialState(), snapshots: {} } };
  const version = storedVersion(stored);
  if (version === undefined) return { ok: false, error: 'the stored branch state has no version' };
  let state = stored as BranchEntityState;
  for (let at = version; at < BRANCH_STATE_VERSION; at++) {
    const upgrade = UPGRADES[at];
    if (!upgrade)
      return { ok: false, error: `branch state version ${version} was never released; it cannot be read` };
    state = upgrade(state);
  }
  return { ok: true, state };
}

function storedVersion(stored: unknown): number | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const branch = (stored as { branch?: unknown }).branch;
  if (typeof branch !== 'object' || branch === null) return undefined;
  const version = (branch as { version?: unknown }).version;
  return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
}
