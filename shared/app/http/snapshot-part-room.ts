import { ApiError } from '../../api/errors';
import { SNAPSHOT_RECORD_PARTS } from '../../api/snapshot-parts';
import { publicationStatus } from '../../branch';
import { type BranchEntityState, snapshotKey } from '../entity/branch-operations';
import { secondsUntilRoomFrees } from './state-room';

/**
 * Refuses, before anything of it is stored, a snapshot part the branch should not keep
 * (limits in shared/api/snapshot-parts.ts): with 409 `too-many-parts` when its snapshot already
 * has `snapshotParts` parts, with 429 `intake-paused` while the branch keeps `branchSnapshotParts`
 * across its unsettled snapshots, each counting {@link SNAPSHOT_RECORD_PARTS} more for its record. A part the snapshot already holds (the same payload reference,
 * sent again) always passes: it changes nothing. `state` is the branch's last known state, so
 * parts in flight can exceed either limit by as many; the entity keeps them.
 */
export function checkPartRoom({
  state,
  target,
  snapshotId,
  payloadRef,
  limits,
  branchName,
  at,
}: {
  state: BranchEntityState | undefined;
  target: string;
  snapshotId: string;
  payloadRef: string;
  limits: { snapshotParts: number; branchSnapshotParts: number };
  branchName: string;
  at: string;
}): void {
  if (!state) return;
  const parts = state.snapshots[snapshotKey(target, snapshotId)]?.parts ?? [];
  if (parts.some((part) => part.ref === payloadRef)) return;
  if (parts.length >= limits.snapshotParts) {
    throw new ApiError(
      'too-many-parts',
      `Snapshot "${snapshotId}" already has ${parts.length} parts, the most one snapshot may have (${limits.snapshotParts}); nothing of this part was accepted. Send the snapshot again under a new id in fewer, larger parts (a body may hold up to 10 MiB), or in snapshots of smaller scopes.`,
    );
  }
  const holding = Object.values(state.snapshots).filter((open) => open.parts.length > 0);
  const heldParts = holding.reduce((sum, open) => sum + open.parts.length, 0);
  const kept = heldParts + holding.length * SNAPSHOT_RECORD_PARTS;
  if (kept >= limits.branchSnapshotParts) {
    throw new ApiError(
      'intake-paused',
      `Branch "${branchName}" keeps ${heldParts} parts in ${holding.length} snapshots not yet published, the most it may (${limits.branchSnapshotParts}, each snapshot counting ${SNAPSHOT_RECORD_PARTS} more); nothing of this part was accepted. Parts are freed as their snapshots are published or abandoned.`,
      { retryAfterSeconds: secondsUntilRoomFrees(publicationStatus(state.branch, at), at) },
    );
  }
}
