import type { PruneMode } from './prune-mode';
import type { FailureKind } from './publication-outcome';
import type { SaveOutcome, SavePhase } from './save-vocabulary';
import type { WindowTiming } from './settings';
import type { SnapshotScope } from './snapshot-scope';

/** Who made a change, as the commit will name them. */
export interface Author {
  name: string;
  email?: string;
  username?: string;
}

export function sameAuthor(a: Author, b: Author): boolean {
  return a.name === b.name && a.email === b.email && a.username === b.username;
}

/**
 * How the author was established: from the audit log, the watch, the admission webhook, the
 * configured committer (no author given), or attribution ran and found nobody.
 */
export type Attribution = 'audit' | 'watch' | 'admission' | 'configured' | 'unresolved';

/**
 * What a change does: write or remove its file, or (evaluated at publication against the files the
 * branch holds, published and pending) remove the files of a collection that its selector matches,
 * remove a namespace's file and folder, or set the replica count in its file. The last three are
 * each a write of their own (`scoped-change`), so their order with every other change is the order
 * of writes.
 */
export type Operation = 'upsert' | 'delete' | ScopedOperation;

/** Operations applied to what the branch holds, at publication (docs/payloads.md, "Verbs and subresources"). */
export type ScopedOperation = 'delete-collection' | 'delete-namespace' | 'set-replicas';

export const SCOPED_OPERATIONS: readonly ScopedOperation[] = [
  'delete-collection',
  'delete-namespace',
  'set-replicas',
];

export function isScopedOperation(operation: Operation): operation is ScopedOperation {
  return (SCOPED_OPERATIONS as readonly string[]).includes(operation);
}

/** One change as the window keeps it: the last one per path wins. */
export interface WindowChange {
  path: string;
  operation: Operation;
  payloadRef?: string;
  bytes: number;
  resourceVersion?: string;
  /** Receipt time (epoch ms) of the request that carried it; absent in windows stored before it was kept. */
  atMs?: number;
  /** First-seen order of the path inside its window. */
  seq: number;
}

/**
 * A window change as stored: `[path, operation, bytes, seq, payloadRef, resourceVersion, atMs]`
 * (`atMs` absent in windows stored before receipt times were kept).
 */
export type StoredChange =
  | [string, Operation, number, number, string | null, string | null]
  | [string, Operation, number, number, string | null, string | null, number];

/** One change of a decided write, in first-seen order. */
export interface WriteChange {
  path: string;
  operation: Operation;
  payloadRef?: string;
  bytes: number;
}

/**
 * A run of changes admitted together and kept beside the state: changes `first` to `first + n - 1`
 * of the change list a request stored in its batch payload `ref` (`shared/payloads/change-batches.ts`),
 * received at `atMs`, holding `bytes` payload bytes. The branch decides on its counts alone; the publish
 * activity reads the changes (and orders two changes to one path) when it publishes them.
 */
export interface WriteRun {
  ref: string;
  first: number;
  n: number;
  atMs: number;
  bytes: number;
}

/** A run as the state keeps it: `[ref, first, n, atMs, bytes]`. */
export type StoredRun = [string, number, number, number, number];

/** What a write is: a closed window, a complete scoped snapshot, or a save's own (empty) commit. */
export type WriteKind = 'window' | 'snapshot' | 'save-record';

/**
 * A decided write: the Git layer turns one into exactly one commit (resolving payload references
 * itself), carrying `id` as a trailer so a lost reply can be settled from the remote's history.
 */
export interface PendingWrite {
  id: string;
  kind: WriteKind;
  target: string;
  /** The target's folder in the repository, captured at decision. */
  targetPath: string;
  author: Author;
  attribution: Attribution;
  message: string;
  decidedAt: string;
  /** Captured at decision; only ever tightened before a replay. */
  prune: PruneMode;
  /** A commit is made even when its tree matches its parent (a save asked for `CommitEmpty`). */
  allowEmpty: boolean;
  changes?: WriteChange[];
  /**
   * Runs of changes kept beside the state (state version 4), published after `changes`. A write
   * with runs whose message is empty takes the template of its changes as they are published.
   */
  runs?: WriteRun[];
  snapshot?: { scope: SnapshotScope; revision: string; payloadRef: string; bytes: number; objects?: number };
  saveIds: string[];
  /** Payload bytes held (the sum of change bytes, or the snapshot's bytes). */
  bytes: number;
  /** Items charged to the budget (one per change, at least one). */
  items: number;
}

/**
 * Who writes where, as captured at decision: the author, attribution, target and the target's folder
 * and prune mode. Pending writes reference one by index (`StoredWrite.by`) instead of repeating it.
 */
export interface WriteOrigin {
  target: string;
  targetPath: string;
  prune: PruneMode;
  author: Author;
  attribution: Attribution;
  /** How many pending writes reference this origin; its slot is freed at zero. */
  writes: number;
}

/**
 * A change of a stored write: `[path, bytes]` or `[path, bytes, ref]` for an upsert,
 * `[path, bytes, ref | null, 'delete']` for a delete, `[path]` for a delete of no bytes and no ref
 * (the common delete: 16 bytes less a change), `[path, bytes, ref | null, <scoped operation>]` for a
 * scoped operation (branch state version 4). `path` is `/<name>` when it is in the previous
 * change's folder (`storage/paths.ts`); `ref` is the payload reference as `storage/refs.ts` stores it.
 * Paths stored before the folder form never start with `/` (canonical paths do not), so they read
 * back unchanged.
 */
export type StoredWriteChange =
  | [string]
  | [string, number]
  | [string, number, string]
  | [string, number, string | null, 'delete' | ScopedOperation];

/**
 * A `PendingWrite` as the state keeps it (about 140 bytes for a one-change write instead of 530):
 * what can be derived is left out and restored by `pendingWrites`/`owedEffects`. Absent fields take
 * their derived value; a field is stored only when the write differs from it, so any write round-trips.
 */
export interface StoredWrite {
  /** The id's counter when the id is `<compact decidedAt>-<counter>` (every id the branch decides), else the id. */
  id: number | string;
  /** `decidedAt` in epoch milliseconds when it is canonical (every instant the branch writes), else as given. */
  at: number | string;
  /** Index of the write's origin in `BranchState.origins`. */
  by: number;
  /** Absent for a window write. */
  kind?: 'snapshot' | 'save-record';
  /** The message, absent when it is the template derived from the write (event, group or reconcile). */
  msg?: string;
  allowEmpty?: true;
  /** The changes, in first-seen order. */
  ch?: StoredWriteChange[];
  /** The runs of changes kept beside the state, after `ch`. */
  runs?: StoredRun[];
  /** As in `PendingWrite` (the app reads `snapshot.payloadRef` of stored writes). */
  snapshot?: PendingWrite['snapshot'];
  /** Absent when no save is attached. */
  saveIds?: string[];
  /** Absent when it is the sum of the change bytes, or the snapshot's bytes. */
  bytes?: number;
  /** Absent when it is one per change, at least one. */
  items?: number;
  /**
   * The order of each change (`ch`), as `change-order.ts` stores it, so that a change that arrives
   * late never overwrites a newer pending one. Absent in writes stored before, and for snapshots.
   */
  ord?: string[];
}

/** The open commit window, keyed by (author, attribution, target). */
export interface OpenWindow {
  id: string;
  target: string;
  author: Author;
  attribution: Attribution;
  openedAt: string;
  /** Idle timeout measured from `idleFrom`; null when only the maximum applies (an attached save with none). */
  idleTimeoutMs: number | null;
  idleFrom: string;
  maxDueAt: string;
  /** Changes bucketed by a hash of their path, so an admit copies one small bucket, not the window. */
  buckets: StoredChange[][][];
  /** Runs of changes admitted after the buckets' changes (absent until the first). */
  runs?: StoredRun[];
  /** The paths in the buckets plus the changes of the runs (a run's changes may repeat a path). */
  paths: number;
  bytes: number;
  nextSeq: number;
  /** The event-template message of the sole path, kept while the window holds exactly one path. */
  soleMessage: string | null;
  saveId?: string;
}

/** Where a save's outcome is projected (a CommitRequest), when it came from one. */
export interface SaveRequestRef {
  cluster?: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** A save (commit request) and, once resolved, its receipt. */
export interface SaveRecord {
  id: string;
  seq: number;
  target: string;
  author: Author;
  attribution: Attribution;
  message?: string;
  attach: 'CurrentOrNext' | 'Next';
  attachTimeoutMs: number;
  idleTimeoutMs?: number;
  maxDurationMs: number;
  whenNothingToCommit: 'Resolve' | 'CommitEmpty';
  request?: SaveRequestRef;
  registeredAt: string;
  attachDeadline: string;
  sawForeignWindow: boolean;
  phase: SavePhase;
  windowId?: string;
  writeId?: string;
  outcome?: SaveOutcome;
  commit?: string;
  /** publish: propose: the save's commit on the proposed branch, and the pull request showing it. */
  proposedCommit?: string;
  pullRequest?: { number: number; url: string };
  cause?: string;
  resolvedAt?: string;
  projectedAt?: string;
}

/** A recorded failure cause: its kind and a scrubbed human message. */
export interface FailureCause {
  kind: FailureKind;
  message: string;
}

/** What a deadline is for. */
export type DeadlinePurpose =
  | 'window-close'
  | 'save-attach'
  | 'push-cooldown'
  | 'publication-retry'
  | 'parent-probe'
  | 'receipt-expiry'
  | 'attribution-wait'
  | 'pull-request';

/** A recorded deadline; a firing of an older generation is a no-op. */
export interface Deadline {
  purpose: DeadlinePurpose;
  owner: string;
  generation: number;
  dueAt: string;
}

export type { FailureKind, PruneMode, SaveOutcome, SavePhase, SnapshotScope, WindowTiming };
