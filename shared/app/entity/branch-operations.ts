import { z } from 'zod';
import { SNAPSHOT_PARTS_MAX } from '../../api/snapshot-parts';
import {
  type BranchCommand,
  type BranchEffect,
  type BranchFact,
  type BranchState,
  branchCommandSchema,
  FIELD_CHARS,
  handle,
  nextDeadline,
  type PlannedEffect,
  type PublicationStatus,
  plannedEffects,
  publicationFor,
  publicationStatus,
  type WithdrawAnswer,
  withdrawAnswer,
} from '../../branch';
import { checkTargetPath } from '../../config/names';
import { checkWritePath } from '../../git/check-write-path';
import { quickSafeParse } from '../../json/quick-parse';
import { type AppliedSequences, rememberSequence, seenSequence } from './applied-sequences';
import { type PublishedOrders, rememberPublished, withoutSuperseded } from './published-orders';
import { forgetPastSpan, type RecentRequests, rememberRequest, seenRequest } from './recent-requests';
import { sequencedRequest } from './request-ids';
import { readStoredState } from './stored-state';

/**
 * What the branch entity stores: the branch state machine's state, and the parts of snapshots
 * that arrive in pieces. Parts stay here until their snapshot is published (or abandoned), so the
 * Git activity can read every part of a completed snapshot.
 */
export interface BranchEntityState {
  branch: BranchState;
  /** By {@link snapshotKey}: the sender's id within its target (by bare id before version 4). */
  snapshots: Record<string, SnapshotParts>;
  /** Client signals applied recently whose ids are not sequenced, by request id (absent when none). */
  requests?: RecentRequests[];
  /** Client signals applied, as ranges of their senders' sequence numbers (absent in states stored before version 4). */
  sequences?: AppliedSequences;
  /** The orders of the changes published recently, against signals minutes late (absent in states stored before). */
  published?: PublishedOrders[];
}

export interface SnapshotParts {
  target: string;
  openedAt: string;
  parts: { ref: string; bytes: number; objects: number }[];
  completed: boolean;
  /** A completion that names more parts than have arrived: applied when the last one arrives. */
  awaiting?: SnapshotCompletion;
  /** The completion's scope and revision, kept once applied: a part arriving after it is applied with them. */
  applied?: Pick<SnapshotCompletion, 'scope' | 'revision'>;
}

type SnapshotCompletion = Omit<z.output<(typeof branchOperationSchemas)['snapshot-complete']>, 'requestId'>;

/**
 * Where the entity keeps a snapshot sent in parts: its id is the sender's, chosen per target, so
 * two targets of one branch using one id keep two snapshots. Target names are DNS labels and ids
 * never hold "/", so the key is unambiguous.
 */
export function snapshotKey(target: string, snapshotId: string): string {
  return `${target}/${snapshotId}`;
}

/** The payload reference a completed multi-part snapshot (by its {@link snapshotKey}) is admitted under. */
export function snapshotRef(key: string): string {
  return `snapshot:${key}`;
}

// An incomplete snapshot never deletes anything; one abandoned by its sender is forgotten after this.
const ABANDONED_SNAPSHOT_MS = 60 * 60 * 1000;

const instant = z.iso.datetime({ offset: true });
/** One id per client request (the HTTP layer's); a signal whose id was applied recently is dropped. */
const requestIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8-64 base64url characters');
const partSchema = z.strictObject({
  requestId: requestIdSchema.optional(),
  at: instant,
  snapshotId: z.string().min(1).max(128),
  target: z.string().min(1),
  payloadRef: z.string().min(1),
  bytes: z.number().int().nonnegative(),
  objects: z.number().int().nonnegative(),
});

/** The operations of the branch entity, by name, each with its input schema. */
export const branchOperationSchemas = {
  /** Decide commands in order (settings first, then the work). */
  apply: z.strictObject({
    requestId: requestIdSchema.optional(),
    commands: z.array(branchCommandSchema).min(1),
  }),
  /** Decide one command and answer what a withdrawal of `saveId` came to. */
  withdraw: z.strictObject({ command: branchCommandSchema, saveId: z.string().min(1) }),
  /** Keep one part of a snapshot that arrives in pieces. */
  'snapshot-part': partSchema,
  /** Admit a snapshot whose parts have all arrived, as one `ApplySnapshot`. */
  'snapshot-complete': z.strictObject({
    requestId: requestIdSchema.optional(),
    at: instant,
    snapshotId: z.string().min(1).max(128),
    target: z.string().min(1),
    settings: z.array(branchCommandSchema),
    scope: z.strictObject({
      group: z.string().optional(),
      resource: z.string().optional(),
      namespace: z.string().optional(),
    }),
    revision: z.string().min(1).max(FIELD_CHARS.snapshotRevision),
    /** How many distinct parts the snapshot has; absent: the parts that have arrived. */
    parts: z.number().int().positive().max(SNAPSHOT_PARTS_MAX).optional(),
  }),
  /** Let due deadlines fire and answer what the driver must do next. */
  plan: z.strictObject({ at: instant }),
} as const;

export type BranchOperationName = keyof typeof branchOperationSchemas;

/** What an operation takes, as its schema parses it. */
type OperationInput = z.output<(typeof branchOperationSchemas)[BranchOperationName]>;

const operationParsers = Object.fromEntries(
  Object.entries(branchOperationSchemas).map(([operation, schema]) => [
    operation,
    quickSafeParse<z.ZodType>(schema),
  ]),
) as Record<BranchOperationName, (input: unknown) => z.ZodSafeParseResult<OperationInput>>;

/**
 * `branchOperationSchemas[operation].safeParse(input)`, quick for the input it plainly accepts (every
 * signal of a request's changes, parsed by the HTTP layer before it sends it and by the entity).
 */
export function parseBranchOperation(
  operation: BranchOperationName,
  input: unknown,
): z.ZodSafeParseResult<OperationInput> {
  return operationParsers[operation](input);
}

/** What the driver needs after `plan`: the owed effects, the next deadline, and the status to show. */
export interface BranchPlan {
  at: string;
  effects: PlannedEffect[];
  nextDeadline: string | undefined;
  status: PublicationStatus;
}

export type BranchOperationAnswer =
  | { ok: true; plan?: BranchPlan; withdraw?: WithdrawAnswer }
  | { ok: false; error: string };

/**
 * Runs one entity operation over the stored state. Never throws: a malformed input is answered
 * `{ok: false}` and changes nothing (an entity operation that throws loses its message and keeps
 * whatever state it had set).
 */
export function runBranchOperation(
  stored: unknown,
  operation: string,
  input: unknown,
): { state: BranchEntityState; answer: BranchOperationAnswer; facts: BranchFact[] } {
  const facts: BranchFact[] = [];
  return { ...runOperation(stored, operation, input, facts), facts };
}

/** {@link runBranchOperation}, recording the facts the branch decided into `facts`. */
function runOperation(
  stored: unknown,
  operation: string,
  input: unknown,
  facts: BranchFact[],
): { state: BranchEntityState; answer: BranchOperationAnswer } {
  const reading = readStoredState(stored);
  // An unreadable state is answered, never rewritten: the release that wrote it can still read it.
  if (!reading.ok) return { state: stored as BranchEntityState, answer: { ok: false, error: reading.error } };
  const state = reading.state;
  if (!(operation in branchOperationSchemas)) {
    return { state, answer: { ok: false, error: `unknown branch operation "${operation}"` } };
  }
  const parsed = parseBranchOperation(operation as BranchOperationName, input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      state,
      answer: {
        ok: false,
        error: `${operation}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`,
      },
    };
  }
  const valid = parsed.data;
  const unsafe = unsafePath(state, commandsIn(operation as BranchOperationName, valid));
  if (unsafe !== undefined) return { state, answer: { ok: false, error: `${operation}: ${unsafe}` } };
  const requestId = 'requestId' in valid ? valid.requestId : undefined;
  if (requestId === undefined)
    return rememberingPublished(state, operation as BranchOperationName, valid, facts);
  // A client signal delivered again (at least once, docs/branch-state-machine.md) changes nothing.
  if (requestSeen(state, requestId)) return { state, answer: { ok: true } };
  // One minutes late (its partition moved) changes no path a newer published change holds.
  const current =
    operation === 'apply'
      ? {
          ...valid,
          commands: withoutSuperseded(state.published, (valid as { commands: BranchCommand[] }).commands),
        }
      : valid;
  const empty = 'commands' in current && (current.commands as BranchCommand[]).length === 0;
  const ran = empty
    ? { state, answer: { ok: true } as const }
    : rememberingPublished(state, operation as BranchOperationName, current, facts);
  const atMs = Date.parse(
    'at' in valid ? valid.at : (valid as { commands: BranchCommand[] }).commands.at(-1)!.at,
  );
  return { ...ran, state: rememberingRequest(ran.state, state, requestId, atMs) };
}

/** Whether the client signal `requestId` was applied within the memory its id's form is kept in. */
function requestSeen(state: BranchEntityState, requestId: string): boolean {
  const sequenced = sequencedRequest(requestId);
  return sequenced ? seenSequence(state.sequences, sequenced) : seenRequest(state.requests, requestId);
}

/**
 * `next` remembering the client signal `requestId`, applied at `atMs` on `before`. The memory of
 * unsequenced ids forgets its minutes past the span at every signal, and is dropped once empty,
 * so what an earlier release's senders left in it is gone minutes after they stop.
 */
function rememberingRequest(
  next: BranchEntityState,
  before: BranchEntityState,
  requestId: string,
  atMs: number,
): BranchEntityState {
  const sequenced = sequencedRequest(requestId);
  const { requests: _before, ...rest } = next;
  const requests = sequenced
    ? forgetPastSpan(before.requests ?? [], atMs)
    : rememberRequest(before.requests, requestId, atMs);
  return {
    ...rest,
    ...(requests.length > 0 ? { requests } : {}),
    ...(sequenced ? { sequences: rememberSequence(before.sequences, sequenced, atMs) } : {}),
  };
}

/** {@link runValid}, remembering the orders of the writes a publication it confirmed carried. */
function rememberingPublished(
  state: BranchEntityState,
  operation: BranchOperationName,
  valid: unknown,
  facts: BranchFact[],
): { state: BranchEntityState; answer: BranchOperationAnswer } {
  const from = facts.length;
  const ran = runValid(state, operation, valid, facts);
  const recorded = facts.slice(from);
  if (!recorded.some((fact) => fact.type === 'PublicationConfirmed')) return ran;
  const published = rememberPublished(state.published, state.branch, recorded);
  return { ...ran, state: { ...ran.state, ...(published ? { published } : {}) } };
}

function runValid(
  state: BranchEntityState,
  operation: BranchOperationName,
  valid: unknown,
  facts: BranchFact[],
): { state: BranchEntityState; answer: BranchOperationAnswer } {
  switch (operation) {
    case 'apply': {
      const { commands } = valid as z.output<(typeof branchOperationSchemas)['apply']>;
      return {
        state: forgetSettled(applyAll(state, commands, facts), commands.at(-1)!.at),
        answer: { ok: true },
      };
    }
    case 'withdraw': {
      const { command, saveId } = valid as z.output<(typeof branchOperationSchemas)['withdraw']>;
      const next = applyAll(state, [command], facts);
      const target = command.type === 'WithdrawSave' ? command.target : undefined;
      return { state: next, answer: { ok: true, withdraw: withdrawAnswer(next.branch, saveId, target) } };
    }
    case 'snapshot-part':
      return {
        state: keepPart(state, valid as z.output<(typeof branchOperationSchemas)['snapshot-part']>, facts),
        answer: { ok: true },
      };
    case 'snapshot-complete': {
      const { requestId: _id, ...complete } = valid as z.output<
        (typeof branchOperationSchemas)['snapshot-complete']
      >;
      const key = snapshotKey(complete.target, complete.snapshotId);
      const open = state.snapshots[key];
      // Nothing arrived and no part count named: nothing to apply (a snapshot with no parts would prune all).
      if ((!open && complete.parts === undefined) || open?.completed || open?.awaiting)
        return { state, answer: { ok: true } };
      const waiting: SnapshotParts = open ?? {
        target: complete.target,
        openedAt: complete.at,
        parts: [],
        completed: false,
      };
      const next = {
        ...state,
        snapshots: { ...state.snapshots, [key]: { ...waiting, awaiting: complete } },
      };
      return { state: completeIfWhole(next, key, complete.at, facts), answer: { ok: true } };
    }
    case 'plan': {
      const { at } = valid as z.output<(typeof branchOperationSchemas)['plan']>;
      const next = forgetSettled(applyAll(state, [{ type: 'Tick', at }], facts), at);
      return { state: next, answer: { ok: true, plan: planOf(next, at) } };
    }
  }
}

/**
 * Keeps one part of a snapshot, once per payload reference. A part that arrives after its
 * snapshot was applied (its completion named no count, and the signals crossed) is never dropped:
 * it joins the snapshot's write while that waits unpublished, else it is applied as a snapshot of
 * its own that deletes nothing (`prune: Never`).
 */
function keepPart(
  state: BranchEntityState,
  part: z.output<(typeof branchOperationSchemas)['snapshot-part']>,
  facts: BranchFact[],
): BranchEntityState {
  const kept = { ref: part.payloadRef, bytes: part.bytes, objects: part.objects };
  const key = snapshotKey(part.target, part.snapshotId);
  let id = key;
  for (let late = 1; state.snapshots[id]?.completed && !joinable(state, id); late++)
    id = `${key}.late-${late}`;
  const open = state.snapshots[id];
  if (open?.parts.some((known) => known.ref === part.payloadRef)) return state;
  if (!open && id !== key) {
    const applied = state.snapshots[key]?.applied ?? { scope: {}, revision: 'late' };
    const snapshots = {
      ...state.snapshots,
      [id]: { target: part.target, openedAt: part.at, parts: [kept], completed: true, applied },
    };
    const command: BranchCommand = {
      type: 'ApplySnapshot',
      at: part.at,
      target: part.target,
      ...applied,
      payloadRef: snapshotRef(id),
      bytes: part.bytes,
      objects: part.objects,
      prune: 'Never',
    };
    return forgetSettled(applyAll({ ...state, snapshots }, [command], facts), part.at);
  }
  const base = open ?? { target: part.target, openedAt: part.at, parts: [], completed: false };
  const next = {
    ...state,
    snapshots: { ...state.snapshots, [id]: { ...base, parts: [...base.parts, kept] } },
  };
  return completeIfWhole(next, id, part.at, facts);
}

/** Whether a completed snapshot's write still waits unpublished and not in flight, so a part can join it. */
function joinable(state: BranchEntityState, key: string): boolean {
  const ref = snapshotRef(key);
  const at = state.branch.pending.findIndex((write) => write.snapshot?.payloadRef === ref);
  return at >= (state.branch.publication.inFlight?.writes ?? 0);
}

/** Applies a snapshot's awaited completion once every part it names has arrived. */
function completeIfWhole(
  state: BranchEntityState,
  key: string,
  at: string,
  facts: BranchFact[],
): BranchEntityState {
  const open = state.snapshots[key];
  const complete = open?.awaiting;
  if (!open || !complete || open.parts.length < (complete.parts ?? 0)) return state;
  const { awaiting: _done, ...rest } = open;
  const snapshots = {
    ...state.snapshots,
    [key]: {
      ...rest,
      completed: true,
      applied: { scope: complete.scope, revision: complete.revision },
    },
  };
  const decidedAt = Date.parse(at) > Date.parse(complete.at) ? at : complete.at;
  const command: BranchCommand = {
    type: 'ApplySnapshot',
    at: decidedAt,
    target: complete.target,
    scope: complete.scope,
    revision: complete.revision,
    payloadRef: snapshotRef(key),
    bytes: open.parts.reduce((sum, part) => sum + part.bytes, 0),
    objects: open.parts.reduce((sum, part) => sum + part.objects, 0),
  };
  const next = applyAll(
    { ...state, snapshots },
    [...complete.settings.map((c) => ({ ...c, at: decidedAt })), command],
    facts,
  );
  return forgetSettled(next, decidedAt);
}

/** The branch commands an operation's input carries. */
function commandsIn(operation: BranchOperationName, valid: unknown): readonly BranchCommand[] {
  switch (operation) {
    case 'apply':
      return (valid as z.output<(typeof branchOperationSchemas)['apply']>).commands;
    case 'withdraw':
      return [(valid as z.output<(typeof branchOperationSchemas)['withdraw']>).command];
    case 'snapshot-complete':
      return (valid as z.output<(typeof branchOperationSchemas)['snapshot-complete']>).settings;
    default:
      return [];
  }
}

/**
 * Why a command would write outside its target, if one would: a target path the configuration
 * would refuse, or a change path that is unsafe or outside its target's folder. The HTTP layer
 * never sends one; this holds whoever reached the entity (the entity is the last line before Git).
 */
function unsafePath(state: BranchEntityState, commands: readonly BranchCommand[]): string | undefined {
  const folders = new Map<string, string>();
  for (const command of commands) {
    if (command.type === 'ChangeSettings' && command.path !== undefined) {
      const checked = checkTargetPath(command.path);
      if (!checked.ok) return `the path of target "${command.target}" ${checked.message}`;
      if (checked.path !== command.path)
        return `the path of target "${command.target}" must be normalized ("${checked.path}")`;
      folders.set(command.target, checked.path);
    } else if (command.type === 'AdmitChanges') {
      const inside = folders.get(command.target) ?? state.branch.targets[command.target]?.path ?? '.';
      for (const change of command.changes) {
        const checked = checkWritePath({ path: change.path, inside });
        if ('refused' in checked) return checked.refused;
      }
    }
  }
  return undefined;
}

function applyAll(
  state: BranchEntityState,
  commands: readonly BranchCommand[],
  facts: BranchFact[],
): BranchEntityState {
  let branch = state.branch;
  for (const command of commands) {
    const decided = handle(branch, command);
    branch = decided.state;
    facts.push(...decided.facts);
  }
  return { ...state, branch };
}

function planOf(state: BranchEntityState, at: string): BranchPlan {
  return {
    at,
    effects: plannedEffects(state.branch),
    nextDeadline: nextDeadline(state.branch)?.dueAt,
    status: publicationStatus(state.branch, at),
  };
}

/**
 * The publication in flight under `attempt`, with the part references of every multi-part snapshot
 * it carries, as the publish activity needs it; undefined when that attempt is no longer in flight
 * (its result was recorded: the activity ran again after a crash).
 */
export function publicationInFlight(
  state: BranchEntityState,
  attempt: string,
):
  | { effect: Extract<BranchEffect, { type: 'publish' }>; snapshotParts: Record<string, string[]> }
  | undefined {
  const effect = publicationFor(state.branch, attempt);
  if (!effect) return undefined;
  const snapshotParts: Record<string, string[]> = {};
  for (const write of effect.writes) {
    const ref = write.snapshot?.payloadRef;
    const open = ref?.startsWith('snapshot:') ? state.snapshots[ref.slice('snapshot:'.length)] : undefined;
    if (ref && open) snapshotParts[ref] = open.parts.map((part) => part.ref);
  }
  return { effect, snapshotParts };
}

/**
 * Drops snapshot parts nobody needs any more: those of a completed snapshot no pending write
 * references (published or superseded; the snapshot itself is remembered for an hour), and an
 * incomplete one older than an hour (its sender gave up).
 */
function forgetSettled(state: BranchEntityState, at: string): BranchEntityState {
  const ids = Object.keys(state.snapshots);
  if (ids.length === 0) return state;
  const referenced = new Set(state.branch.pending.map((write) => write.snapshot?.payloadRef));
  const snapshots: Record<string, SnapshotParts> = {};
  for (const id of ids) {
    const open = state.snapshots[id]!;
    const recent = Date.parse(at) - Date.parse(open.openedAt) < ABANDONED_SNAPSHOT_MS;
    // A published snapshot is remembered (without its parts) for as long: a late part is applied, not kept open.
    if (open.completed && referenced.has(snapshotRef(id))) snapshots[id] = open;
    else if (recent) snapshots[id] = open.completed ? { ...open, parts: [] } : open;
  }
  return { ...state, snapshots };
}
