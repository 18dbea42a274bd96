import { changesToAdmit, dueHeldChanges, heldKey, recordedObjects } from './attribution';
import { type ChangeOrder, storeOrder, supersedes } from './change-order';
import type { AdmittedChange, CommandOf } from './commands';
import { type Decision, nextWriteId, record, targetSettings } from './context';
import type { BranchFact, WindowCloseReason } from './facts';
import { eventMessage, groupMessage, saveMessageOr } from './messages';
import {
  type Attribution,
  isScopedOperation,
  type OpenWindow,
  type PendingWrite,
  type SaveRecord,
  sameAuthor,
  type WindowChange,
} from './model';
import { windowChangeLimit } from './settings';
import { changeIn, changesInOrder, expandRun, pendingOrder } from './storage';
import { addMs, toMs } from './time';

/** Attribution outcomes that name a person; an unresolved or configured author names nobody. */
function namesActor(attribution: Attribution): boolean {
  return attribution !== 'unresolved' && attribution !== 'configured';
}

/** A save may attach to a window of its own target and actor; bob never closes alice's window. */
export function saveMatchesWindow(save: SaveRecord, window: OpenWindow): boolean {
  return (
    save.target === window.target &&
    (save.author.username ?? save.author.name) === (window.author.username ?? window.author.name) &&
    namesActor(save.attribution) === namesActor(window.attribution)
  );
}

/** When the open window closes by its timers, and why. */
export function windowCloseDue(window: OpenWindow): { dueMs: number; reason: WindowCloseReason } {
  const idleMs =
    window.idleTimeoutMs === null ? Number.POSITIVE_INFINITY : toMs(window.idleFrom) + window.idleTimeoutMs;
  const maxMs = toMs(window.maxDueAt);
  const dueMs = Math.min(idleMs, maxMs);
  const reason: WindowCloseReason = window.saveId
    ? 'save-deadline'
    : maxMs <= idleMs
      ? 'max-duration'
      : 'idle-timeout';
  return { dueMs, reason };
}

/** Closes the open window into a decided write, under its attached save's message if it has one. */
export function closeWindow(decision: Decision, reason: WindowCloseReason): void {
  const window = decision.state.window;
  if (!window) return;
  const state = decision.state;
  const settings = targetSettings(state, window.target);
  const save = window.saveId ? state.saves[window.saveId] : undefined;
  const generated =
    window.paths === 1 && window.soleMessage !== null
      ? window.soleMessage
      : groupMessage(window.author, window.target, window.paths);
  const writeId = nextWriteId(decision);
  const inOrder = changesInOrder(window);
  const runs = window.runs?.map(expandRun);
  // A write with runs takes its template message when its changes are read (publication): the
  // branch keeps only their count, which repeats a path changed twice.
  const message = runs ? saveMessageOr(save?.message, '') : saveMessageOr(save?.message, generated);
  const write: PendingWrite = {
    id: writeId,
    kind: 'window',
    target: window.target,
    targetPath: settings.path,
    author: window.author,
    attribution: window.attribution,
    message,
    decidedAt: decision.at,
    prune: settings.prune,
    allowEmpty: save?.whenNothingToCommit === 'CommitEmpty',
    // a window of runs alone keeps no change list of its own
    ...(runs && inOrder.length === 0
      ? {}
      : {
          changes: inOrder.map(({ path, operation, payloadRef, bytes }) =>
            payloadRef === undefined ? { path, operation, bytes } : { path, operation, payloadRef, bytes },
          ),
        }),
    ...(runs ? { runs } : {}),
    saveIds: save ? [save.id] : [],
    bytes: window.bytes,
    items: Math.max(1, window.paths),
  };
  record(decision, {
    type: 'WindowClosed',
    windowId: window.id,
    reason,
    writeId,
    ...(save ? { saveId: save.id } : {}),
  });
  const order = inOrder.map((change) => storeOrder(change, decision.atMs));
  record(decision, { type: 'WriteDecided', write, order, reason: 'window-closed' });
}

/** Closes the open window when its idle or maximum deadline has passed. */
export function closeWindowIfDue(decision: Decision): void {
  const window = decision.state.window;
  if (!window) return;
  const { dueMs, reason } = windowCloseDue(window);
  if (decision.atMs >= dueMs) closeWindow(decision, reason);
}

function openWindow(decision: Decision, command: CommandOf<'AdmitChanges' | 'AdmitRun'>): void {
  const timing = targetSettings(decision.state, command.target).window;
  const windowId = `window-${decision.state.counters.window + 1}`;
  record(decision, {
    type: 'WindowOpened',
    windowId,
    target: command.target,
    author: command.author,
    attribution: command.attribution,
    idleTimeoutMs: timing.idleTimeoutMs,
    maxDurationMs: timing.maxDurationMs,
    maxDueAt: addMs(decision.at, timing.maxDurationMs),
  });
  const window = decision.state.window;
  if (!window) return;
  for (const save of Object.values(decision.state.saves)) {
    if (
      save.phase === 'WaitingForWindow' &&
      save.target === window.target &&
      !saveMatchesWindow(save, window)
    ) {
      if (!save.sawForeignWindow)
        record(decision, { type: 'SaveSawForeignWindow', saveId: save.id, windowId });
    }
  }
}

/** Why `change` must not be admitted: a newer change to its path is in the window or pending. */
function newerKept(
  decision: Decision,
  window: OpenWindow,
  change: AdmittedChange,
  earlier: WindowChange | undefined,
): Omit<Extract<BranchFact, { type: 'ChangeSkipped' }>, 'type' | 'at' | 'windowId' | 'path'> | undefined {
  const order = { resourceVersion: change.resourceVersion, atMs: decision.atMs };
  const inWindow = earlier ?? changeIn(window, change.path);
  const pending = inWindow ? undefined : pendingOrder(decision.state, window.target, change.path);
  const kept = inWindow ?? pending?.order;
  if (!kept || supersedes(order, kept)) return undefined;
  const byVersion = kept.resourceVersion !== undefined && change.resourceVersion !== undefined;
  return {
    ...(change.resourceVersion !== undefined ? { resourceVersion: change.resourceVersion } : {}),
    ...(kept.resourceVersion !== undefined ? { keptResourceVersion: kept.resourceVersion } : {}),
    ...(pending ? { writeId: pending.writeId } : {}),
    reason: byVersion && supersedesByVersion(order, kept) ? 'older-resource-version' : 'older-receipt',
  };
}

/** Whether the skip was decided by resourceVersions (both integers) rather than receipt times. */
function supersedesByVersion(candidate: ChangeOrder, kept: ChangeOrder): boolean {
  return /^\d+$/.test(candidate.resourceVersion ?? '') && /^\d+$/.test(kept.resourceVersion ?? '');
}

/**
 * Admits changes into the window of their (author, attribution, target), closing another one first.
 * A change older than the one its path holds in the window or in a pending write is skipped, and a
 * window that reaches its change limit closes (`item-limit`) and the rest go to the next one. A
 * scoped change (a collection delete, a namespace removal, a replica count) closes the window
 * before it and its own window after it (`scoped-change`). On a target with an attribution wait, a
 * change with no author is held instead, and one already recorded makes nothing (`attribution.ts`);
 * `released` changes were held and are admitted now.
 */
export function admitChanges(decision: Decision, command: CommandOf<'AdmitChanges'>, released = false): void {
  const changes = changesToAdmit(decision, command, released);
  if (changes.length === 0) return;
  closeForeignWindow(decision, command);
  const held = decision.state.window;
  // inline changes publish before a window's runs: one arriving after runs starts the next window
  if (held?.runs && !isScopedOperation(changes[0]!.operation)) closeWindow(decision, 'after-runs');
  const limit = windowChangeLimit(decision.state.limits);
  let rest = changes;
  while (rest.length > 0) {
    if (!decision.state.window) openWindow(decision, command);
    const window = decision.state.window;
    if (!window) return;
    const accepted: Omit<WindowChange, 'seq'>[] = [];
    const objects: AdmittedChange[] = [];
    let lastAccepted: AdmittedChange | undefined;
    let newPaths = 0;
    let taken = 0;
    let scoped = false;
    for (const change of rest) {
      if (window.paths + newPaths >= limit) break;
      // a scoped change is applied to the files held when it is published: alone in its write, no
      // change admitted before or after it can be reordered around it by the window's path order
      const isScoped = isScopedOperation(change.operation);
      if (isScoped && window.paths + newPaths > 0) break;
      taken += 1;
      // commands carry a handful of changes: a scan beats building an index
      const earlierIndex = accepted.findIndex((entry) => entry.path === change.path);
      const earlier =
        earlierIndex >= 0 ? { ...accepted[earlierIndex]!, atMs: decision.atMs, seq: 0 } : undefined;
      const skipped = newerKept(decision, window, change, earlier);
      if (skipped) {
        record(decision, { type: 'ChangeSkipped', windowId: window.id, path: change.path, ...skipped });
        continue;
      }
      if (!earlier && !changeIn(window, change.path)) newPaths += 1;
      const entry: Omit<WindowChange, 'seq'> = {
        path: change.path,
        operation: change.operation,
        bytes: change.bytes,
      };
      if (change.payloadRef !== undefined) entry.payloadRef = change.payloadRef;
      if (change.resourceVersion !== undefined) entry.resourceVersion = change.resourceVersion;
      if (earlierIndex >= 0) accepted[earlierIndex] = entry;
      else accepted.push(entry);
      objects.push(change);
      lastAccepted = change;
      if (isScoped) {
        scoped = true;
        break;
      }
    }
    rest = rest.slice(taken);
    if (accepted.length > 0 && lastAccepted) {
      const soleMessage = window.paths + newPaths === 1 ? eventMessage(lastAccepted) : undefined;
      record(decision, {
        type: 'ChangesAdmitted',
        windowId: window.id,
        changes: accepted,
        ...(soleMessage !== undefined ? { soleMessage } : {}),
      });
      const recorded = recordedObjects(objects);
      if (recorded.length > 0)
        record(decision, { type: 'ObjectsRecorded', target: command.target, objects: recorded });
      attachWaitingSave(decision);
    }
    const open = decision.state.window;
    if (!open) continue;
    const scopedNext = rest[0] !== undefined && isScopedOperation(rest[0].operation) && open.paths > 0;
    if (scoped || scopedNext) closeWindow(decision, 'scoped-change');
    else if (open.paths >= limit) closeWindow(decision, 'item-limit');
    else if (open.bytes + decision.state.pendingBytes >= decision.state.limits.bufferBytes) {
      closeWindow(decision, 'buffer-limit');
    } else if (toMs(open.maxDueAt) <= decision.atMs) {
      closeWindow(decision, open.saveId ? 'save-deadline' : 'max-duration');
    }
  }
}

/** Closes the open window when it is another (author, attribution, target)'s than the command's. */
function closeForeignWindow(decision: Decision, command: CommandOf<'AdmitChanges' | 'AdmitRun'>): void {
  const current = decision.state.window;
  if (
    current &&
    !(
      current.target === command.target &&
      current.attribution === command.attribution &&
      sameAuthor(current.author, command.author)
    )
  ) {
    closeWindow(decision, 'author-or-target-change');
  }
}

/**
 * Admits a run of changes kept beside the state into the window of its (author, attribution,
 * target), as `admitChanges` admits changes, on their counts: the window's change limit counts
 * each change of a run (a run longer than the room left is split at it), and the byte and time
 * caps close it as they do. Which of two changes to one path is newer is decided when the run is
 * published (`shared/app/activities/expand-runs.ts`), by the same rule (`change-order.ts`).
 */
export function admitRun(decision: Decision, command: CommandOf<'AdmitRun'>): void {
  closeForeignWindow(decision, command);
  const limit = windowChangeLimit(decision.state.limits);
  const atMs = decision.atMs;
  let { first, n } = command.run;
  let bytesLeft = command.run.bytes;
  while (n > 0) {
    if (!decision.state.window) openWindow(decision, command);
    const window = decision.state.window;
    if (!window) return;
    const taken = Math.min(n, Math.max(1, limit - window.paths));
    // a split run's bytes go with its first part: the budget and byte cap count them once, at once
    const bytes = bytesLeft;
    record(decision, {
      type: 'RunAdmitted',
      windowId: window.id,
      run: { ref: command.run.ref, first, n: taken, atMs, bytes },
    });
    bytesLeft -= bytes;
    first += taken;
    n -= taken;
    attachWaitingSave(decision);
    const open = decision.state.window;
    if (!open) continue;
    if (open.paths >= limit) closeWindow(decision, 'item-limit');
    else if (open.bytes + decision.state.pendingBytes >= decision.state.limits.bufferBytes) {
      closeWindow(decision, 'buffer-limit');
    } else if (toMs(open.maxDueAt) <= decision.atMs) {
      closeWindow(decision, open.saveId ? 'save-deadline' : 'max-duration');
    }
  }
}

/**
 * Admits the held changes whose attribution wait has passed, unclaimed, as they came: each run of
 * one target and author as one admission, in the order they were held.
 */
export function releaseHeldChanges(decision: Decision): void {
  const due = dueHeldChanges(decision.state, decision.atMs);
  let from = 0;
  while (from < due.length) {
    const { target, author } = due[from]!;
    let to = from + 1;
    while (to < due.length && due[to]!.target === target && sameAuthor(due[to]!.author, author)) to += 1;
    const run = due.slice(from, to);
    record(decision, {
      type: 'HeldChangesReleased',
      target,
      keys: run.map((held) => heldKey(target, held.change)),
      reason: 'attribution-wait-passed',
    });
    admitChanges(
      decision,
      {
        type: 'AdmitChanges',
        at: decision.at,
        target,
        author,
        attribution: 'configured',
        changes: run.map((held) => held.change),
      },
      true,
    );
    from = to;
  }
}

/**
 * Offers the open window, when it carries no save, to the waiting save of its actor with the lowest
 * registration sequence; the save's own timers replace the window's.
 */
export function attachWaitingSave(decision: Decision): void {
  const window = decision.state.window;
  if (!window || window.saveId) return;
  let chosen: SaveRecord | undefined;
  for (const save of Object.values(decision.state.saves)) {
    if (save.phase !== 'WaitingForWindow' || !saveMatchesWindow(save, window)) continue;
    if (!chosen || save.seq < chosen.seq) chosen = save;
  }
  if (!chosen) return;
  record(decision, {
    type: 'SaveAttached',
    saveId: chosen.id,
    windowId: window.id,
    idleTimeoutMs: chosen.idleTimeoutMs ?? null,
    maxDueAt: addMs(decision.at, chosen.maxDurationMs),
  });
  if (chosen.maxDurationMs === 0) closeWindow(decision, 'save-deadline');
}
