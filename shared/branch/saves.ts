import type { CommandOf } from './commands';
import { type Decision, nextWriteId, record, targetSettings } from './context';
import { groupMessage, saveMessageOr } from './messages';
import type { PendingWrite, SaveRecord } from './model';
import type { BranchState } from './state';
import { addMs, toMs } from './time';
import { attachWaitingSave, closeWindow, saveMatchesWindow } from './windows';

/**
 * Save ids are per target. A save is kept under its id, or under `<target>/<id>` when that id is
 * already kept for another target (save ids hold no `/`); states stored before saves were scoped keep
 * every save under its id, and read the same way. A tombstone of a targeted withdrawal is kept under
 * `<target>/<id>`; one under the bare id (an untargeted withdrawal, or an older state) holds for every target.
 */
export function scopedSaveKey(target: string, saveId: string): string {
  return `${target}/${saveId}`;
}

/** The id a client knows a save by (its key without the target scope). */
export function publicSaveId(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/** The save `saveId` of `target`, whichever key it is kept under. */
export function findSave(state: BranchState, target: string, saveId: string): SaveRecord | undefined {
  const scoped = state.saves[scopedSaveKey(target, saveId)];
  if (scoped) return scoped;
  const bare = state.saves[saveId];
  return bare?.target === target ? bare : undefined;
}

/** When `saveId` of `target` was withdrawn before it was registered, if it was. */
export function tombstoneOf(state: BranchState, target: string, saveId: string): string | undefined {
  return state.tombstones[scopedSaveKey(target, saveId)] ?? state.tombstones[saveId];
}

/** True when another target than `target` has a save `saveId`. */
export function savedByAnotherTarget(state: BranchState, target: string, saveId: string): boolean {
  return Object.values(state.saves).some(
    (save) => save.target !== target && publicSaveId(save.id) === saveId,
  );
}

/**
 * Registers a save first come, first served. A known id restarts nothing (a resolved one keeps its
 * recorded outcome) and a withdrawn id's tombstone refuses the late registration.
 */
export function registerSave(decision: Decision, command: CommandOf<'RegisterSave'>): void {
  const state = decision.state;
  if (
    findSave(state, command.target, command.saveId) ||
    tombstoneOf(state, command.target, command.saveId) !== undefined
  )
    return;
  const limits = state.limits;
  const attachTimeoutMs = command.attachTimeoutMs ?? limits.attachTimeoutMs;
  // A save that names no author (the configured committer stands in) means "the changes being
  // collected now": it takes the author of its target's open window, or it could never attach to it.
  const open = state.window;
  const adopted =
    (command.attribution ?? 'admission') === 'configured' && open?.target === command.target
      ? { author: open.author, attribution: open.attribution }
      : { author: command.author, attribution: command.attribution ?? 'admission' };
  const save: SaveRecord = {
    id: state.saves[command.saveId] ? scopedSaveKey(command.target, command.saveId) : command.saveId,
    seq: state.counters.save + 1,
    target: command.target,
    ...adopted,
    attach: command.attach ?? 'CurrentOrNext',
    attachTimeoutMs,
    maxDurationMs: command.maxDurationMs ?? limits.saveMaxDurationMs,
    whenNothingToCommit: command.whenNothingToCommit ?? 'Resolve',
    registeredAt: decision.at,
    attachDeadline: addMs(decision.at, attachTimeoutMs),
    sawForeignWindow: false,
    phase: 'WaitingForWindow',
  };
  if (command.message !== undefined) save.message = command.message;
  if (command.idleTimeoutMs !== undefined) save.idleTimeoutMs = command.idleTimeoutMs;
  if (command.request !== undefined) save.request = command.request;
  record(decision, { type: 'SaveRegistered', save });

  const window = decision.state.window;
  if (window && window.target === save.target) {
    if (!saveMatchesWindow(save, window)) {
      record(decision, { type: 'SaveSawForeignWindow', saveId: save.id, windowId: window.id });
    } else if (save.attach === 'Next') {
      closeWindow(decision, 'attach-next');
    } else {
      attachWaitingSave(decision);
    }
  }
}

/**
 * Withdraws a save that is only waiting (or unknown: a tombstone); a held one keeps going. A
 * withdrawal names its target: another target's save of the same id is not found, never withdrawn.
 */
export function withdrawSave(decision: Decision, command: CommandOf<'WithdrawSave'>): void {
  const state = decision.state;
  const { target, saveId } = command;
  const save = target === undefined ? state.saves[saveId] : findSave(state, target, saveId);
  if (!save) {
    if (target === undefined) {
      if (state.tombstones[saveId] !== undefined) return;
    } else if (
      tombstoneOf(state, target, saveId) !== undefined ||
      savedByAnotherTarget(state, target, saveId)
    )
      return;
    record(decision, {
      type: 'SaveResolved',
      saveId: target === undefined ? saveId : scopedSaveKey(target, saveId),
      outcome: 'Withdrawn',
      reason: 'withdrawn-before-registration',
    });
    return;
  }
  if (save.phase === 'WaitingForWindow') {
    record(decision, {
      type: 'SaveResolved',
      saveId: save.id,
      outcome: 'Withdrawn',
      reason: 'withdrawn-while-waiting',
    });
  } else if (save.phase !== 'Resolved') {
    record(decision, { type: 'WithdrawIgnored', saveId: save.id, held: save.phase });
  }
}

function expireSave(decision: Decision, save: SaveRecord): void {
  if (save.sawForeignWindow) {
    record(decision, {
      type: 'SaveResolved',
      saveId: save.id,
      outcome: 'WindowMismatch',
      reason: 'attach-timeout',
    });
    return;
  }
  if (save.whenNothingToCommit === 'CommitEmpty') {
    const settings = targetSettings(decision.state, save.target);
    const write: PendingWrite = {
      id: nextWriteId(decision),
      kind: 'save-record',
      target: save.target,
      targetPath: settings.path,
      author: save.author,
      attribution: save.attribution,
      message: saveMessageOr(save.message, groupMessage(save.author, save.target, 0)),
      decidedAt: decision.at,
      prune: settings.prune,
      allowEmpty: true,
      changes: [],
      saveIds: [save.id],
      bytes: 0,
      items: 1,
    };
    record(decision, { type: 'WriteDecided', write, reason: 'save-record' });
    return;
  }
  record(decision, { type: 'SaveResolved', saveId: save.id, outcome: 'NoWindow', reason: 'attach-timeout' });
}

/** Resolves every waiting save whose attach deadline has passed (decided before any attach). */
export function expireDueSaves(decision: Decision): void {
  const due = Object.values(decision.state.saves)
    .filter((save) => save.phase === 'WaitingForWindow' && toMs(save.attachDeadline) <= decision.atMs)
    .sort((a, b) => a.seq - b.seq);
  for (const save of due) expireSave(decision, save);
}

/**
 * How long the receipt of a save that may commit empty is kept at least: a redelivery of it within
 * this time answers its original outcome; one after it would be a new save and could commit empty
 * again, since no tree tells an empty commit made twice (docs/architecture.md, "What survives what").
 * Such saves are rare and explicit, so keeping their receipts a week costs little.
 */
export const EMPTY_SAVE_RECEIPT_RETENTION_MS = 7 * 24 * 3600_000;

/** When a resolved save's receipt may be forgotten: retention after projection (or resolution, when nothing projects it). */
export function receiptExpiryMs(save: SaveRecord, retentionMs: number): number | undefined {
  if (save.phase !== 'Resolved') return undefined;
  const from = save.request ? save.projectedAt : save.resolvedAt;
  const keptMs =
    save.whenNothingToCommit === 'CommitEmpty'
      ? Math.max(retentionMs, EMPTY_SAVE_RECEIPT_RETENTION_MS)
      : retentionMs;
  return from === undefined ? undefined : toMs(from) + keptMs;
}

/** Forgets receipts and tombstones past their retention. */
export function forgetExpiredReceipts(decision: Decision): void {
  const retention = decision.state.limits.receiptRetentionMs;
  const expired: string[] = [];
  for (const save of Object.values(decision.state.saves)) {
    const expiry = receiptExpiryMs(save, retention);
    if (expiry !== undefined && expiry <= decision.atMs) expired.push(save.id);
  }
  for (const [id, at] of Object.entries(decision.state.tombstones)) {
    if (toMs(at) + retention <= decision.atMs) expired.push(id);
  }
  if (expired.length > 0) record(decision, { type: 'ReceiptsForgotten', saveIds: expired });
}

/** Records that a resolved save's outcome reached its CommitRequest (`saveId` is the save's key). */
export function recordProjection(decision: Decision, command: CommandOf<'RecordProjection'>): void {
  const save = decision.state.saves[command.saveId];
  if (save?.phase === 'Resolved' && save.projectedAt === undefined) {
    record(decision, { type: 'OutcomeProjected', saveId: save.id });
  }
}
