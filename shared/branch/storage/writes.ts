import { eventMessage, groupMessage, reconcileMessage } from '../messages';
import type {
  Operation,
  PendingWrite,
  StoredWrite,
  StoredWriteChange,
  WriteChange,
  WriteOrigin,
} from '../model';
import { compactStamp, toIso, toMs } from '../time';
import { acquireOrigin, type Origins } from './origins';
import { expandPath, storePath } from './paths';
import { expandRef, storeRef } from './refs';
import { expandRun, runTotals, storeRun } from './runs';

/**
 * Pending writes are stored compactly so that a budget full of one-change writes (a commit per change
 * during an outage) fits the durable entity's 1 MB: author, attribution and target settings live once
 * in an origins table, and every field the write's other fields determine (its id's time stamp, its
 * template message, its byte and item counts, the defaults) is left out. `expandWrite` restores the
 * exact `PendingWrite`; `storeWrite` keeps a field whenever it differs from its derived value.
 */
const WRITE_COUNTER = /^[1-9]\d{0,14}$/;

function storeChange(
  change: WriteChange,
  previousPath: string | undefined,
  previousRef: string | undefined,
): StoredWriteChange {
  const path = storePath(change.path, previousPath);
  const ref = change.payloadRef === undefined ? undefined : storeRef(change.payloadRef, previousRef);
  if (change.operation === 'delete')
    return change.bytes === 0 && ref === undefined ? [path] : [path, change.bytes, ref ?? null, 'delete'];
  if (change.operation !== 'upsert') return [path, change.bytes, ref ?? null, change.operation];
  return ref === undefined ? [path, change.bytes] : [path, change.bytes, ref];
}

/**
 * A write's changes as stored: each path relative to the path before it, each reference relative
 * to the last reference before it.
 */
function storeChanges(changes: readonly WriteChange[]): StoredWriteChange[] {
  let previousPath: string | undefined;
  let previousRef: string | undefined;
  return changes.map((change) => {
    const stored = storeChange(change, previousPath, previousRef);
    previousPath = change.path;
    if (change.payloadRef !== undefined) previousRef = change.payloadRef;
    return stored;
  });
}

/** The paths of a stored write's changes, in order. */
export function changePaths(stored: readonly StoredWriteChange[]): string[] {
  let previousPath: string | undefined;
  return stored.map(([storedPath]) => {
    previousPath = expandPath(storedPath, previousPath);
    return previousPath;
  });
}

function expandChanges(stored: readonly StoredWriteChange[]): WriteChange[] {
  let previousRef: string | undefined;
  let previousPath: string | undefined;
  return stored.map((change) => {
    const [storedPath, bytes = 0, ref] = change;
    const path = expandPath(storedPath, previousPath);
    previousPath = path;
    const operation: Operation = change.length === 1 ? 'delete' : (change[3] ?? 'upsert');
    if (ref === undefined || ref === null) return { path, operation, bytes };
    previousRef = expandRef(ref, previousRef);
    return { path, operation, payloadRef: previousRef, bytes };
  });
}

function templateMessage(
  write: Pick<PendingWrite, 'kind' | 'snapshot' | 'author' | 'target' | 'runs'>,
  changes: readonly WriteChange[] | undefined,
): string {
  // a write with runs takes its template when its changes are read, at publication
  if (write.runs) return '';
  if (write.kind === 'snapshot' && write.snapshot) {
    return reconcileMessage(write.snapshot.scope, write.snapshot.revision, write.snapshot.objects);
  }
  const sole = changes?.length === 1 ? changes[0] : undefined;
  return sole ? eventMessage(sole) : groupMessage(write.author, write.target, changes?.length ?? 0);
}

/** The payload bytes a stored write holds. */
export function storedBytes(stored: StoredWrite): number {
  if (stored.bytes !== undefined) return stored.bytes;
  if (stored.ch || stored.runs) {
    let sum = runTotals(stored.runs).bytes;
    for (const change of stored.ch ?? []) sum += change[1] ?? 0;
    return sum;
  }
  return stored.snapshot?.bytes ?? 0;
}

/** The budget items a stored write is charged. */
export function storedItems(stored: StoredWrite): number {
  return stored.items ?? Math.max(1, (stored.ch?.length ?? 0) + runTotals(stored.runs).n);
}

/** When a stored write was decided. */
export function storedDecidedAt(stored: StoredWrite): string {
  return typeof stored.at === 'number' ? toIso(stored.at) : stored.at;
}

/** A stored write's id. */
export function storedWriteId(stored: StoredWrite): string {
  return typeof stored.id === 'number' ? `${compactStamp(storedDecidedAt(stored))}-${stored.id}` : stored.id;
}

function compactInstant(iso: string): number | string {
  const ms = toMs(iso);
  return toIso(ms) === iso ? ms : iso;
}

function compactId(write: PendingWrite): number | string {
  const dash = write.id.lastIndexOf('-');
  const counter = write.id.slice(dash + 1);
  if (dash < 0 || !WRITE_COUNTER.test(counter)) return write.id;
  return write.id.slice(0, dash) === compactStamp(write.decidedAt) ? Number(counter) : write.id;
}

/** `write` in its stored form, with the origins table it now references. */
export function storeWrite(
  origins: Origins,
  write: PendingWrite,
): { stored: StoredWrite; origins: (WriteOrigin | null)[] } {
  const acquired = acquireOrigin(origins, {
    target: write.target,
    targetPath: write.targetPath,
    prune: write.prune,
    author: write.author,
    attribution: write.attribution,
  });
  const stored: StoredWrite = { id: compactId(write), at: compactInstant(write.decidedAt), by: acquired.by };
  if (write.kind !== 'window') stored.kind = write.kind;
  if (write.message !== templateMessage(write, write.changes)) stored.msg = write.message;
  if (write.allowEmpty) stored.allowEmpty = true;
  if (write.changes) stored.ch = storeChanges(write.changes);
  if (write.runs) stored.runs = write.runs.map(storeRun);
  if (write.snapshot) stored.snapshot = write.snapshot;
  if (write.saveIds.length > 0) stored.saveIds = write.saveIds;
  if (write.bytes !== storedBytes(stored)) stored.bytes = write.bytes;
  if (write.items !== storedItems(stored)) stored.items = write.items;
  return { stored, origins: acquired.origins };
}

/** The `PendingWrite` a stored write stands for, exactly as it was decided (key order included). */
export function expandWrite(origins: Origins, stored: StoredWrite): PendingWrite {
  const origin = origins[stored.by];
  if (!origin) throw new Error(`pending write ${storedWriteId(stored)} references no origin`);
  const kind = stored.kind ?? 'window';
  const changes = stored.ch && expandChanges(stored.ch);
  const runs = stored.runs?.map(expandRun);
  const { target, targetPath, author, attribution, prune } = origin;
  return {
    id: storedWriteId(stored),
    kind,
    target,
    targetPath,
    author,
    attribution,
    message:
      stored.msg ?? templateMessage({ kind, snapshot: stored.snapshot, author, target, runs }, changes),
    decidedAt: storedDecidedAt(stored),
    prune,
    allowEmpty: stored.allowEmpty === true,
    ...(changes ? { changes } : {}),
    ...(runs ? { runs } : {}),
    ...(stored.snapshot ? { snapshot: stored.snapshot } : {}),
    saveIds: stored.saveIds ?? [],
    bytes: storedBytes(stored),
    items: storedItems(stored),
  };
}
