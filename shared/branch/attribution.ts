import { compareResourceVersions } from './change-order';
import type { AdmittedChange, CommandOf } from './commands';
import { type Decision, record, targetSettings } from './context';
import type { FactOf } from './facts';
import { type Attribution, isScopedOperation } from './model';
import type { AttributionState, BranchState, HeldChange, RecordedObject } from './state';
import { toIso } from './time';

/**
 * Combined feeds: a target recorded by the forwarder (state, deletes, snapshots; its watch events
 * name nobody) and by an Event Hubs feed (the audit log, minutes late, naming the user). A change
 * with no author is held for the target's attribution wait, so that the audit record of the same
 * object and resourceVersion can claim it (one commit, by the audit user); past the wait it is
 * admitted as it came (the configured committer). Each object's newest recorded change is kept a
 * while, by uid, so that whichever of the two arrives second makes nothing, and a change older than
 * a recorded one (another partition's, late) makes nothing either.
 */

/** How long an object's newest recorded change is kept: beyond the longest wait, and the id memory's span. */
export const RECORDED_OBJECT_MS = 15 * 60_000;
/** Objects kept at most (about 80 bytes each); beyond, the least recently recorded are forgotten. */
export const RECORDED_OBJECTS_KEPT = 1_000;

/** Why a change is not admitted: its object's change is already recorded, or held. */
export type AlreadyRecordedReason = FactOf<'ChangeAlreadyRecorded'>['reason'];

function namesActor(attribution: Attribution): boolean {
  return attribution !== 'unresolved' && attribution !== 'configured';
}

function recordedKey(target: string, uid: string): string {
  return `${target}/${uid}`;
}

/** A held change's identity: its object, and its resourceVersion (an upsert) or its removal. */
export function heldKey(
  target: string,
  change: Pick<AdmittedChange, 'uid' | 'operation' | 'resourceVersion'>,
): string {
  return `${recordedKey(target, change.uid ?? '')}/${change.operation === 'delete' ? 'delete' : change.resourceVersion}`;
}

function attributionWaitMs(state: BranchState, target: string): number {
  return targetSettings(state, target).attributionWaitMs ?? 0;
}

/** When a held change is released, unclaimed: its receipt plus its target's wait. */
export function heldReleaseMs(state: BranchState, held: HeldChange): number {
  return held.atMs + attributionWaitMs(state, held.target);
}

/** A change an audit record can match: its object's uid, and a delete or an upsert with an etcd revision. */
function matchable(change: AdmittedChange): change is AdmittedChange & { uid: string } {
  if (change.uid === undefined) return false;
  if (change.operation === 'delete') return true;
  return change.operation === 'upsert' && compareResourceVersions(change.resourceVersion, '0') !== undefined;
}

/** Why `change` makes nothing: its object's newest recorded change is the same, newer, or the object's removal. */
function alreadyRecorded(
  state: BranchState,
  target: string,
  change: AdmittedChange,
): { reason: AlreadyRecordedReason; keptResourceVersion?: string } | undefined {
  if (change.uid === undefined || isScopedOperation(change.operation)) return undefined;
  const kept = state.attribution?.recorded[recordedKey(target, change.uid)];
  if (!kept) return undefined;
  const [, keptVersion, deleted] = kept;
  const order = compareResourceVersions(change.resourceVersion, keptVersion ?? undefined);
  const version = keptVersion === null ? {} : { keptResourceVersion: keptVersion };
  if (order !== undefined && order < 0) return { reason: 'older-resource-version', ...version };
  if (order === 0) return { reason: 'same-resource-version', ...version };
  // nothing of an object follows its removal: the same uid is never given to another object
  if (deleted === 1) return { reason: 'object-deleted', ...version };
  return undefined;
}

/**
 * The changes of `command` to admit now: those already recorded are skipped, a change with no
 * author on a target with an attribution wait is held, and a change by a named actor claims the
 * held change of its object and resourceVersion. Released changes (`released`) are only checked
 * against what was recorded meanwhile.
 */
export function changesToAdmit(
  decision: Decision,
  command: CommandOf<'AdmitChanges'>,
  released: boolean,
): AdmittedChange[] {
  const { target } = command;
  const holding =
    !released && command.attribution === 'configured' && attributionWaitMs(decision.state, target) > 0;
  const claiming = !released && namesActor(command.attribution);
  const admit: AdmittedChange[] = [];
  for (const change of command.changes) {
    const known = alreadyRecorded(decision.state, target, change);
    if (known) {
      skip(decision, target, change, known);
      continue;
    }
    if (holding && matchable(change)) {
      const key = heldKey(target, change);
      if (decision.state.attribution?.held.some((held) => heldKey(held.target, held.change) === key)) {
        skip(decision, target, change, { reason: 'already-held' });
        continue;
      }
      record(decision, { type: 'ChangeHeld', target, author: command.author, change });
      continue;
    }
    if (claiming && matchable(change)) {
      const key = heldKey(target, change);
      const claimed = decision.state.attribution?.held.find(
        (held) => heldKey(held.target, held.change) === key,
      );
      if (claimed)
        record(decision, { type: 'HeldChangeClaimed', target, key, path: change.path, by: command.author });
    }
    admit.push(change);
  }
  return admit;
}

function skip(
  decision: Decision,
  target: string,
  change: AdmittedChange,
  why: { reason: AlreadyRecordedReason; keptResourceVersion?: string },
): void {
  record(decision, {
    type: 'ChangeAlreadyRecorded',
    target,
    path: change.path,
    ...(change.uid !== undefined ? { uid: change.uid } : {}),
    ...(change.resourceVersion !== undefined ? { resourceVersion: change.resourceVersion } : {}),
    ...why,
  });
}

/** The held changes whose wait has passed at `atMs`, in the order they were held. */
export function dueHeldChanges(state: BranchState, atMs: number): HeldChange[] {
  return (state.attribution?.held ?? []).filter((held) => heldReleaseMs(state, held) <= atMs);
}

/** When the next held change is released, if one is held. */
export function nextReleaseMs(state: BranchState): number | undefined {
  let next: number | undefined;
  for (const held of state.attribution?.held ?? []) {
    const due = heldReleaseMs(state, held);
    if (next === undefined || due < next) next = due;
  }
  return next;
}

/**
 * An operator's discard (`DiscardPendingWrites`) drops every held change with the branch's writes,
 * so the wait's end publishes none of them. Each object is remembered as recorded, as a discarded
 * write's change is, so the audit record of the discarded change, arriving late, makes nothing
 * either (unless a newer change of the object is recorded already).
 */
export function discardHeldChanges(decision: Decision, reason: string): void {
  const held = decision.state.attribution?.held ?? [];
  for (const target of new Set(held.map((one) => one.target))) {
    const changes = held.filter((one) => one.target === target).map((one) => one.change);
    const unknown = changes.filter((change) => !alreadyRecorded(decision.state, target, change));
    record(decision, {
      type: 'HeldChangesDiscarded',
      target,
      keys: changes.map((change) => heldKey(target, change)),
      reason,
    });
    const objects = recordedObjects(unknown);
    if (objects.length > 0) record(decision, { type: 'ObjectsRecorded', target, objects });
  }
}

/** The changes held for attribution, as the status shows them. */
export interface HeldChangesView {
  count: number;
  /** Their payload bytes (each also charges the item overhead to the intake budget). */
  bytes: number;
  /** When the oldest was received; null when none is held. */
  oldestSince: string | null;
  /** When the wait releases the first of them, unclaimed, to a window; null when none is held. */
  releasesAt: string | null;
}

/** The changes of `target` (or of the whole branch) held for their audit record; none before the branch has state. */
export function heldChangesView(state: BranchState | undefined, target?: string): HeldChangesView {
  if (!state) return { count: 0, bytes: 0, oldestSince: null, releasesAt: null };
  const held = (state.attribution?.held ?? []).filter((one) => target === undefined || one.target === target);
  let bytes = 0;
  let oldestMs: number | undefined;
  let releaseMs: number | undefined;
  for (const one of held) {
    bytes += one.change.bytes;
    const dueMs = heldReleaseMs(state, one);
    if (oldestMs === undefined || one.atMs < oldestMs) oldestMs = one.atMs;
    if (releaseMs === undefined || dueMs < releaseMs) releaseMs = dueMs;
  }
  return {
    count: held.length,
    bytes,
    oldestSince: oldestMs === undefined ? null : toIso(oldestMs),
    releasesAt: releaseMs === undefined ? null : toIso(releaseMs),
  };
}

/** The objects of admitted changes, as `ObjectsRecorded` names them. */
export function recordedObjects(changes: readonly AdmittedChange[]): FactOf<'ObjectsRecorded'>['objects'] {
  return changes.flatMap((change) =>
    change.uid === undefined || isScopedOperation(change.operation)
      ? []
      : [
          {
            uid: change.uid,
            ...(change.resourceVersion !== undefined ? { resourceVersion: change.resourceVersion } : {}),
            ...(change.operation === 'delete' ? { deleted: true as const } : {}),
          },
        ],
  );
}

const EMPTY: AttributionState = { held: [], recorded: {} };

/** The attribution state once `fact` is folded (a fact about anything else leaves it as it is). */
export function evolveAttribution(
  state: AttributionState | undefined,
  fact: FactOf<
    'ChangeHeld' | 'HeldChangeClaimed' | 'HeldChangesReleased' | 'HeldChangesDiscarded' | 'ObjectsRecorded'
  >,
): AttributionState {
  const current = state ?? EMPTY;
  switch (fact.type) {
    case 'ChangeHeld': {
      const held: HeldChange = {
        target: fact.target,
        author: fact.author,
        atMs: Date.parse(fact.at),
        change: fact.change,
      };
      return { ...current, held: [...current.held, held] };
    }
    case 'HeldChangeClaimed':
      return {
        ...current,
        held: current.held.filter((held) => heldKey(held.target, held.change) !== fact.key),
      };
    case 'HeldChangesReleased':
    case 'HeldChangesDiscarded': {
      const gone = new Set(fact.keys);
      return {
        ...current,
        held: current.held.filter((held) => !gone.has(heldKey(held.target, held.change))),
      };
    }
    case 'ObjectsRecorded':
      return { ...current, recorded: withRecorded(current.recorded, fact) };
  }
}

/** The recorded objects with `fact`'s added last, those older than the span or beyond the count forgotten. */
function withRecorded(
  recorded: Record<string, RecordedObject>,
  fact: FactOf<'ObjectsRecorded'>,
): Record<string, RecordedObject> {
  const atMs = Date.parse(fact.at);
  const added = new Map<string, RecordedObject>();
  for (const object of fact.objects)
    added.set(recordedKey(fact.target, object.uid), [
      atMs,
      object.resourceVersion ?? null,
      object.deleted ? 1 : 0,
    ]);
  const kept = Object.entries(recorded).filter(
    ([key, [recordedAt]]) => recordedAt > atMs - RECORDED_OBJECT_MS && !added.has(key),
  );
  return Object.fromEntries([...kept, ...added].slice(-RECORDED_OBJECTS_KEPT));
}
