import { heldReleaseMs } from './attribution';
import type { Operation, WriteRun } from './model';
import { publicSaveId } from './saves';
import type { BranchState } from './state';
import { changesInOrder, expandRun, pendingWrites } from './storage';
import { toIso } from './time';

/**
 * One path a target has not published yet: a change of a decided write (in publication order), a
 * whole snapshot, or a change still collecting in the open window.
 */
export interface PendingPathView {
  path: string;
  operation: Operation | 'snapshot';
  /** The decided write that carries it; null while it is in the open window. */
  writeId: string | null;
  /** When its write was decided, or when the window received it (or held it, for its audit record). */
  since: string;
  /** Only for a change held for its audit record: when the attribution wait releases it, unclaimed. */
  heldUntil?: string;
}

/** Runs of changes kept beside the state, in a write or the open window (null): their paths are in their batches. */
export interface PendingRunsView {
  runs: WriteRun[];
  writeId: string | null;
  since: string;
}

/**
 * A target's unpublished paths: its pending writes' changes in publication order, then its open
 * window's (the runs of a write or the window where they stand, for the reader to list from their
 * batches), then the changes held for their audit record, oldest first.
 */
export function pendingPaths(state: BranchState, target: string): (PendingPathView | PendingRunsView)[] {
  const paths: (PendingPathView | PendingRunsView)[] = [];
  for (const write of pendingWrites(state)) {
    if (write.target !== target) continue;
    if (write.snapshot) {
      paths.push({
        path: write.targetPath,
        operation: 'snapshot',
        writeId: write.id,
        since: write.decidedAt,
      });
    }
    for (const change of write.changes ?? []) {
      paths.push({
        path: change.path,
        operation: change.operation,
        writeId: write.id,
        since: write.decidedAt,
      });
    }
    if (write.runs) paths.push({ runs: write.runs, writeId: write.id, since: write.decidedAt });
  }
  const window = state.window;
  if (window?.target === target) {
    for (const change of changesInOrder(window)) {
      paths.push({
        path: change.path,
        operation: change.operation,
        writeId: null,
        since: change.atMs === undefined ? window.openedAt : toIso(change.atMs),
      });
    }
    if (window.runs) paths.push({ runs: window.runs.map(expandRun), writeId: null, since: window.openedAt });
  }
  for (const held of state.attribution?.held ?? []) {
    if (held.target !== target) continue;
    paths.push({
      path: held.change.path,
      operation: held.change.operation,
      writeId: null,
      since: toIso(held.atMs),
      heldUntil: toIso(heldReleaseMs(state, held)),
    });
  }
  return paths;
}

/** A save of a target as a listing shows it: its progress and, once resolved, how it ended. */
export interface SaveListing {
  id: string;
  phase: string;
  outcome: string | null;
  commit: string | null;
  message: string | null;
  author: string;
  registeredAt: string;
  resolvedAt: string | null;
}

/**
 * A target's saves the branch keeps: those still held (not resolved) first, oldest first, then the
 * resolved ones whose receipts are kept, newest first.
 */
export function targetSaves(state: BranchState, target: string): SaveListing[] {
  const saves = Object.values(state.saves).filter((save) => save.target === target);
  const held = saves.filter((save) => save.phase !== 'Resolved').sort((a, b) => a.seq - b.seq);
  const resolved = saves.filter((save) => save.phase === 'Resolved').sort((a, b) => b.seq - a.seq);
  return [...held, ...resolved].map((save) => ({
    id: publicSaveId(save.id),
    phase: save.phase,
    outcome: save.outcome ?? null,
    commit: save.commit ?? null,
    message: save.message ?? null,
    author: save.author.username ?? save.author.name,
    registeredAt: save.registeredAt,
    resolvedAt: save.resolvedAt ?? null,
  }));
}
