import { initialState } from '../../branch';
import type { StoredWrite } from '../../branch/model';
import { type BranchEntityState, type SnapshotParts, snapshotKey, snapshotRef } from './branch-operations';

/** The branch state version this code writes. */
export const BRANCH_STATE_VERSION = 4;

/** A stored state of some version, read step by step: only the last step has this code's shape. */
type EarlierState = Omit<BranchEntityState, 'branch'> & {
  branch: Omit<BranchEntityState['branch'], 'version'> & { version: number };
};

/**
 * Readers of every branch state version a release has written, each to the next. 0.1.0 wrote
 * version 2, the first one released; a version added later gets its reader from the one before.
 */
const UPGRADES: Record<number, (state: EarlierState) => EarlierState> = {
  // 0.1.0 and 0.2.0 wrote version 2: no target was ever suspended.
  2: (state) => ({ ...state, branch: { ...state.branch, version: 3, suspended: {} } }),
  // 0.3.0 wrote version 3: snapshots sent in parts were kept by the sender's id alone; its writes
  // hold only upserts and deletes (version 4 adds the scoped operations: collection delete,
  // namespace removal, replica count), stored as version 4 stores them.
  3: snapshotsPerTarget,
};

/**
 * Version 3 → 4: each snapshot kept by its bare id (`<id>`, `<id>.late-<n>`) is kept under its
 * target (`<target>/<id>…`), and a pending write of a completed one references it there, so parts
 * posted before the upgrade complete, publish and are forgotten as before. Version 4 adds nothing
 * else to read: `refused` entries without `writeId` only appear from version 4 on; `notRecorded`
 * (what each target did not record) is absent until its first count; `recentCommits` and `activity`
 * (what changed) start empty, absent, as in any branch before its first change; `sequences` (the
 * client signals applied, as ranges of their senders' numbers) is absent until the first numbered
 * signal, and the ids an earlier release's signals carry stay in `requests`, read as before;
 * `attribution` (the combined feeds' held changes and recorded objects) and a target's
 * `attributionWaitMs` are absent until an Event Hubs feed records the target; `runs` of a window or a pending write (changes
 * kept beside the state in their batch payload) are absent in every earlier version, whose windows
 * and writes keep each change inline and are read as they are.
 */
function snapshotsPerTarget(state: EarlierState): EarlierState {
  const refs = new Map<string, string>();
  const snapshots: Record<string, SnapshotParts> = {};
  for (const [id, open] of Object.entries(state.snapshots)) {
    const key = snapshotKey(open.target, id);
    snapshots[key] = open;
    refs.set(snapshotRef(id), snapshotRef(key));
  }
  const pending = state.branch.pending.map((write): StoredWrite => {
    const ref = write.snapshot && refs.get(write.snapshot.payloadRef);
    return ref && write.snapshot ? { ...write, snapshot: { ...write.snapshot, payloadRef: ref } } : write;
  });
  return { ...state, snapshots, branch: { ...state.branch, version: 4, pending } };
}

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
  let state = stored as EarlierState;
  for (let at = version; at < BRANCH_STATE_VERSION; at++) {
    const upgrade = UPGRADES[at];
    if (!upgrade)
      return { ok: false, error: `branch state version ${version} was never released; it cannot be read` };
    state = upgrade(state);
  }
  return { ok: true, state: state as BranchEntityState };
}

function storedVersion(stored: unknown): number | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const branch = (stored as { branch?: unknown }).branch;
  if (typeof branch !== 'object' || branch === null) return undefined;
  const version = (branch as { version?: unknown }).version;
  return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
}
