import type { CommandOf } from './commands';
import { type Decision, nextWriteId, record, targetSettings } from './context';
import { reconcileMessage } from './messages';
import type { PendingWrite, SnapshotScope } from './model';
import { storedWriteId } from './storage';
import { closeWindow } from './windows';

function sameScope(a: SnapshotScope, b: SnapshotScope): boolean {
  return a.group === b.group && a.resource === b.resource && a.namespace === b.namespace;
}

/**
 * Decides a complete scoped snapshot: the open window closes first (its save keeps its membership),
 * and an unpublished, save-free snapshot of the same scope that is not in flight is superseded.
 */
export function applySnapshot(decision: Decision, command: CommandOf<'ApplySnapshot'>): void {
  if (decision.state.window) closeWindow(decision, 'resync-before-apply');
  const state = decision.state;
  const settings = targetSettings(state, command.target);
  const writeId = nextWriteId(decision);
  const inFlight = state.publication.inFlight?.writes ?? 0;
  for (const older of state.pending.slice(inFlight)) {
    if (
      older.kind === 'snapshot' &&
      state.origins[older.by]?.target === command.target &&
      older.saveIds === undefined &&
      older.snapshot &&
      sameScope(older.snapshot.scope, command.scope)
    ) {
      record(decision, {
        type: 'SnapshotSuperseded',
        writeId: storedWriteId(older),
        by: writeId,
        reason: 'newer-snapshot-of-same-scope',
      });
    }
  }
  const snapshot: NonNullable<PendingWrite['snapshot']> = {
    scope: command.scope,
    revision: command.revision,
    payloadRef: command.payloadRef,
    bytes: command.bytes,
  };
  if (command.objects !== undefined) snapshot.objects = command.objects;
  const write: PendingWrite = {
    id: writeId,
    kind: 'snapshot',
    target: command.target,
    targetPath: settings.path,
    author: { name: 'kubescribe' },
    attribution: 'configured',
    message: reconcileMessage(command.scope, command.revision, command.objects),
    decidedAt: decision.at,
    prune: command.prune ?? settings.prune,
    allowEmpty: false,
    snapshot,
    saveIds: [],
    bytes: command.bytes,
    items: 1,
  };
  record(decision, { type: 'WriteDecided', write, reason: 'snapshot' });
}
