import { initialState } from '../../branch';
import type { BranchEntityState } from './branch-operations';

/** The branch state version this code writes. */
export const BRANCH_STATE_VERSION = 4;

/** A stored state between upgrade steps: the current shape under an earlier version number. */
type StateOfAnyVersion = Omit<BranchEntityState, 'branch'> & {
  branch: Omit<BranchEntityState['branch'], 'version'> & { version: number };
};

/**
 * Readers of every branch state version a release has written, each to the next. 0.1.0 wrote
 * version 2, the first one released; a version added later gets its reader from the one before.
 */
const UPGRADES: Record<number, (state: StateOfAnyVersion) => StateOfAnyVersion> = {
  // 0.1.0 and 0.2.0 wrote version 2: no target was ever suspended.
  2: (state) => ({ ...state, branch: { ...state.branch, version: 3, suspended: {} } }),
  // 0.3.0 wrote version 3: its writes hold only upserts and deletes, each stored as version 4 stores
  // them; version 4 adds the scoped operations (collection delete, namespace removal, replica count).
  3: (state) => ({ ...state, branch: { ...state.branch, version: 4 } }),
};

export type StoredStateReading = { ok: true; state: BranchEntityState } | { ok: false; error: string };

/**
 * The entity's stored state as this code reads it: nothing yet (a new branch), the current
 * version, or an earlier released one upgraded step by step. A state of a version this code does
 * not know (written by a newer release, before a downgrade) is not read, so it is never rewritten.
 */
export function readStoredState(stored: unknown): StoredStateReading {
  if (stored === undefined || stored === null)
    return { ok: true, state: { branch: initialState(), snapshots: {} } };
  const version = storedVersion(stored);
  if (version === undefined) return { ok: false, error: 'the stored branch state has no version' };
  let state = stored as StateOfAnyVersion;
  for (let at = version; at < BRANCH_STATE_VERSION; at++) {
    const upgrade = UPGRADES[at];
    if (!upgrade)
      return { ok: false, error: `branch state version ${version} was never released; it cannot be read` };
    state = upgrade(state);
  }
  if (version > BRANCH_STATE_VERSION) {
    return {
      ok: false,
      error: `the branch state is version ${version}, newer than this code's ${BRANCH_STATE_VERSION}: it was written by a later release; run that release`,
    };
  }
  // every step ran: the state is of this code's version
  return { ok: true, state: state as BranchEntityState };
}

function storedVersion(stored: unknown): number | undefined {
  if (typeof stored !== 'object') return undefined;
  const branch = (stored as { branch?: unknown }).branch;
  if (typeof branch !== 'object' || branch === null) return undefined;
  const version = (branch as { version?: unknown }).version;
  return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
}
