import {
  type Attribution,
  type Author,
  type BranchCommand,
  FIELD_CHARS,
  type PublicationStatus,
} from '../../branch';
import { isScopedOperation } from '../../branch/model';
import { admittedFrom, type BatchedChange, storeChangeBatch } from '../../payloads/change-batches';
import type { Change, ChangeAuthor } from '../../resources';
import { commitAuthor } from '../../resources/commit-author';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import type { BranchHandle } from './branch-handle';
import { boundsChecker, type NotRecorded, type NotRecordedCount } from './not-recorded';
import { changesStateBytes, RUN_STATE_BYTES } from './state-room';

/** What became of a request's changes: those recorded, and those refused with their reasons. */
export interface Acceptance {
  recorded: Change[];
  refused: NotRecorded[];
}

/**
 * Accepts normalized changes on a target's branch: refuses with 429 when the branch's intake is
 * paused or the changes do not fit its budget, else stores their payloads, signals the branch
 * once with every change (one `AdmitChanges` per author, in arrival order) and wakes its driver.
 * A change the branch cannot hold (a field out of its bounds) is refused on its own, and so is
 * each of `notRecorded` (the caller's): the same signal records them among the target's refused
 * writes, so each is either recorded or reported, never neither. `counted`, the request's events
 * read and not recorded (ignored, excluded), rides in the same signal; alone, it is signalled whatever
 * the branch's intake (it adds a bounded count). When this resolves, all of it is durable.
 */
export async function acceptChanges({
  runtime,
  branch,
  changes,
  notRecorded = [],
  counted,
  attribution,
  at,
}: {
  runtime: AppRuntime;
  branch: BranchHandle;
  changes: readonly Change[];
  notRecorded?: readonly NotRecorded[];
  counted?: NotRecordedCount;
  attribution: Extract<Attribution, 'audit' | 'watch'>;
  at: string;
}): Promise<Acceptance> {
  const { target } = branch;
  const refused = [...notRecorded];
  const held: HeldChange[] = [];
  const outOfBounds = boundsChecker(target.config.path);
  const originOf = originsOf(target);
  for (const change of changes) {
    const { author, key } = originOf(change);
    const candidate = admitted(change, target.attributionWaitMs !== undefined);
    const problem = outOfBounds(change.identity, author, candidate);
    if (problem) refused.push(problem);
    else held.push({ change, author, key, admitted: candidate });
  }
  if (held.length === 0 && refused.length === 0) {
    if (counted)
      await branch.apply(at, [{ type: 'CountNotRecorded', at, target: target.config.name, ...counted }]);
    return { recorded: [], refused };
  }
  const status = await branch.checkAdmission(
    {
      bytes: held.reduce((sum, item) => sum + item.admitted.bytes, 0),
      items: held.length,
      stateBytes: heldStateBytes(held, target.attributionWaitMs !== undefined),
    },
    at,
  );

  const commands: BranchCommand[] =
    held.length > 0 ? await admitCommands(runtime, held, attribution, target, at) : [];
  for (let from = 0; from < refused.length; from += REFUSALS_PER_COMMAND) {
    commands.push({
      type: 'RefuseChanges',
      at,
      target: target.config.name,
      changes: refused.slice(from, from + REFUSALS_PER_COMMAND),
    });
  }
  if (counted) commands.push({ type: 'CountNotRecorded', at, target: target.config.name, ...counted });
  for (const signal of signalsOf(commands)) await branch.apply(at, signal);
  if (held.length > 0 && admitNeedsWake(status, runtime.nowMs())) await branch.wake();
  return { recorded: held.map(({ change }) => change), refused };
}

/**
 * Stores the held changes as one batch (their contents and the change list naming them) and
 * returns the commands that admit them, in arrival order: per author, one `AdmitRun` for each
 * stretch of changes (the branch keeps its counts, the change list stays in the payload), and an
 * `AdmitChanges` for each scoped change (a collection delete, a namespace removal, a replica count),
 * which the branch decides on alone in its write.
 */
async function admitCommands(
  runtime: AppRuntime,
  held: readonly HeldChange[],
  attribution: Extract<Attribution, 'audit' | 'watch'>,
  target: ResolvedTarget,
  at: string,
): Promise<BranchCommand[]> {
  const contents: string[] = [];
  // each entry gets its content's index as its last field, in place: a copy with the index (a spread)
  // takes Node 20's slow path for an object built field by field, 0.7 µs a change
  const listed: BatchedChange[] = held.map(({ change, admitted: entry }) => {
    if (change.content !== undefined) entry.content = contents.push(change.content) - 1;
    return entry;
  });
  const ref = await storeChangeBatch(runtime.payloads, contents, listed);
  // a target an Event Hubs feed records (an attribution wait) admits its changes inline: the
  // branch matches the forwarder's and the audit record's by each change's uid and resourceVersion
  const inline = target.attributionWaitMs !== undefined;
  const commands: BranchCommand[] = [];
  let run: Extract<BranchCommand, { type: 'AdmitRun' }> | undefined;
  let runKey: string | undefined;
  // made for a change that starts a command, not for each change
  const originOf = (change: Change, author: Author) => ({
    at,
    target: target.config.name,
    author,
    attribution: change.author ? attribution : ('configured' as const),
  });
  held.forEach(({ change, author, key }, index) => {
    const entry = listed[index]!;
    if (inline) {
      // one command per stretch of one origin, each change in it: the branch holds and claims them one by one
      const last = commands.at(-1);
      const candidate = admittedFrom(ref, entry);
      if (last?.type === 'AdmitChanges' && runKey === key) last.changes.push(candidate);
      else commands.push({ type: 'AdmitChanges', ...originOf(change, author), changes: [candidate] });
      runKey = key;
      return;
    }
    if (isScopedOperation(entry.operation)) {
      commands.push({
        type: 'AdmitChanges',
        ...originOf(change, author),
        changes: [admittedFrom(ref, entry)],
      });
      run = undefined;
      return;
    }
    if (run && runKey === key) {
      run.run.n += 1;
      run.run.bytes += entry.bytes;
      return;
    }
    run = {
      type: 'AdmitRun',
      ...originOf(change, author),
      run: { ref, first: index, n: 1, bytes: entry.bytes },
    };
    runKey = key;
    commands.push(run);
  });
  return commands;
}

// A refused change is at most about 700 bytes of JSON (its object and message are cut to 300
// characters each), so a command of this many stays near 70 KB.
const REFUSALS_PER_COMMAND = 100;

/**
 * Changes one signal carries at most: about 200 bytes of JSON each, so a signal stays far below the
 * smallest backend message limit (the Durable Task Scheduler's 1 MiB) while an audit batch (400
 * events) still takes one entity operation.
 */
export const CHANGES_PER_SIGNAL = 1_000;

/**
 * The commands cut into signals of at most `CHANGES_PER_SIGNAL` changes, in order; a command of
 * refused changes takes the room of `REFUSALS_PER_COMMAND` * 4 changes (its entries are larger).
 */
export function signalsOf(commands: readonly BranchCommand[]): BranchCommand[][] {
  const signals: BranchCommand[][] = [[]];
  let room = CHANGES_PER_SIGNAL;
  for (const command of commands) {
    if (command.type === 'RefuseChanges') {
      if (room < REFUSALS_PER_COMMAND * 4) {
        signals.push([]);
        room = CHANGES_PER_SIGNAL;
      }
      signals.at(-1)!.push(command);
      room -= REFUSALS_PER_COMMAND * 4;
      continue;
    }
    if (command.type === 'AdmitRun') {
      // a run is a few numbers and a reference, whatever its length
      if (room === 0) {
        signals.push([]);
        room = CHANGES_PER_SIGNAL;
      }
      signals.at(-1)!.push(command);
      room -= 1;
      continue;
    }
    if (command.type !== 'AdmitChanges') {
      signals.at(-1)!.push(command);
      continue;
    }
    for (let from = 0; from < command.changes.length; ) {
      if (room === 0) {
        signals.push([]);
        room = CHANGES_PER_SIGNAL;
      }
      const changes = command.changes.slice(from, from + room);
      signals.at(-1)!.push({ ...command, changes });
      from += changes.length;
      room -= changes.length;
    }
  }
  return signals.filter((signal) => signal.length > 0);
}

// Between the acknowledged signal and the window's close: absorbs clock skew between instances.
const WAKE_MARGIN_MS = 250;

/**
 * Whether an admit must wake the branch's driver. Not when the branch's last known state shows a
 * window that closes more than a margin from now: the driver sleeps until that close at the
 * latest (it planned after the window's deadline was recorded, or was woken to), and the plan it
 * makes then comes after this admit's signal, so it sees every deadline this admit creates, none
 * of which is earlier. `signaledAtMs` is read after the signal was acknowledged. Under steady ingest this wakes the driver once a window, not once a request.
 */
export function admitNeedsWake(status: PublicationStatus | undefined, signaledAtMs: number): boolean {
  const closesAt = status?.window.open ? status.window.closesAt : undefined;
  return closesAt === undefined || Date.parse(closesAt) <= signaledAtMs + WAKE_MARGIN_MS;
}

/**
 * What admitting `held` adds to the branch's state at most: a run for each stretch of one author's
 * changes (`RUN_STATE_BYTES`, whatever its length), and each scoped change as the window keeps it;
 * every change as the window keeps it when they are admitted `inline`.
 */
function heldStateBytes(held: readonly HeldChange[], inline: boolean): number {
  if (inline) return changesStateBytes(held.map(({ change }) => change.path));
  let bytes = 0;
  let previous: string | undefined;
  for (const { change, key } of held) {
    if (isScopedOperation(change.operation)) {
      bytes += changesStateBytes([change.path]);
      previous = undefined;
    } else if (previous !== key) {
      bytes += RUN_STATE_BYTES;
      previous = key;
    }
  }
  return bytes;
}

/** A change the branch can hold, with its commit author and the key of the window it goes to. */
interface HeldChange {
  change: Change;
  author: Author;
  key: string;
  /** As the branch admits it; its content's index in the batch is added when the batch is made. */
  admitted: BatchedChange;
}

/**
 * Each change's commit author and window key, for one request: a request's events come from few
 * users, so each user's author is worked out once (the author is a function of the username and
 * groups alone, `commitAuthor`), not once an event.
 */
function originsOf(target: ResolvedTarget): (change: Change) => { author: Author; key: string } {
  // by username ('' for none), each with its users' groups: no key string is made per change
  const known = new Map<
    string,
    { user: ChangeAuthor | undefined; origin: { author: Author; key: string } }[]
  >();
  return (change) => {
    const user = change.author;
    const ofName = known.get(user?.username ?? '') ?? [];
    for (const entry of ofName) if (sameUser(entry.user, user)) return entry.origin;
    const identity = commitAuthor(user, target.repository.committer, target.authors);
    const author: Author = user ? { ...identity, username: user.username } : identity;
    // changes of one key go to one window: the same author, attributed the same way
    const key = `${user ? 'attributed' : 'configured'}\n${author.name}\n${author.email}\n${author.username ?? ''}`;
    const origin = { author, key };
    known.set(user?.username ?? '', [...ofName, { user, origin }]);
    return origin;
  };
}

/** Whether two changes' users are one: the same username and groups, in order. */
function sameUser(a: ChangeAuthor | undefined, b: ChangeAuthor | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.username !== b.username) return false;
  const groups = a.groups ?? [];
  const others = b.groups ?? [];
  return groups.length === others.length && groups.every((group, index) => group === others[index]);
}

/**
 * The change as the branch admits it, before its payload is stored; with its object's uid on a
 * target an Event Hubs feed records (`withUid`), where the branch matches the two feeds by it.
 */
function admitted(change: Change, withUid: boolean): BatchedChange {
  const { identity } = change;
  // field by field, in the order the stored change list has them: no garbage object per field
  const candidate: BatchedChange = {
    path: change.path,
    operation: change.operation,
    bytes: change.content === undefined ? 0 : Buffer.byteLength(change.content),
  };
  if (change.resourceVersion) candidate.resourceVersion = change.resourceVersion;
  // a uid no apiserver assigns is left out, not refused: the change is recorded, only unmatched
  if (withUid && change.uid && change.uid.length <= FIELD_CHARS.objectUid) candidate.uid = change.uid;
  const apiVersion = identity.group ? `${identity.group}/${identity.version}` : identity.version;
  candidate.subject = identity.namespace
    ? { apiVersion, resource: identity.resource, namespace: identity.namespace, name: identity.name }
    : { apiVersion, resource: identity.resource, name: identity.name };
  if (change.operation === 'delete' || change.operation === 'delete-namespace') candidate.verb = 'delete';
  else if (change.created) candidate.verb = 'create';
  if (change.selector) candidate.selector = change.selector;
  return candidate;
}
