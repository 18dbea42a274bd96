import type { AdmittedChange, Attribution, Author, BranchCommand, PublicationStatus } from '../../branch';
import { storeBatch } from '../../payloads/payload-batches';
import type { Change } from '../../resources';
import { commitAuthor } from '../../resources/commit-author';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import type { BranchHandle } from './branch-handle';
import { changesStateBytes } from './state-room';

/**
 * Accepts normalized changes on a target's branch: refuses with 429 when the branch's intake is
 * paused or the changes do not fit its budget, else stores their payloads, signals the branch
 * once with every change (one `AdmitChanges` per author, in arrival order) and wakes its driver.
 * When this resolves, the changes are durable.
 */
export async function acceptChanges({
  runtime,
  branch,
  changes,
  attribution,
  at,
}: {
  runtime: AppRuntime;
  branch: BranchHandle;
  changes: readonly Change[];
  attribution: Extract<Attribution, 'audit' | 'watch'>;
  at: string;
}): Promise<void> {
  if (changes.length === 0) return;
  const { target } = branch;
  const sized = changes.map((change) => ({
    change,
    bytes: change.content === undefined ? 0 : Buffer.byteLength(change.content),
  }));
  const status = await branch.checkAdmission(
    {
      bytes: sized.reduce((sum, item) => sum + item.bytes, 0),
      items: changes.length,
      stateBytes: changesStateBytes(changes.map((change) => change.path)),
    },
    at,
  );

  const contents = changes.flatMap((change) => (change.content === undefined ? [] : [change.content]));
  const stored = await storeBatch(runtime.payloads, contents);
  let nextStored = 0;
  const refs = changes.map((change) => (change.content === undefined ? undefined : stored[nextStored++]));
  const commands: BranchCommand[] = [];
  let current: { key: string; command: Extract<BranchCommand, { type: 'AdmitChanges' }> } | undefined;
  sized.forEach(({ change, bytes }, index) => {
    const author = authorOf(change, target);
    const changeAttribution: Attribution = change.author ? attribution : 'configured';
    const key = `${changeAttribution}\n${author.name}\n${author.email}\n${author.username ?? ''}`;
    if (current?.key !== key) {
      current = {
        key,
        command: {
          type: 'AdmitChanges',
          at,
          target: target.config.name,
          author,
          attribution: changeAttribution,
          changes: [],
        },
      };
      commands.push(current.command);
    }
    current.command.changes.push(admitted(change, bytes, refs[index]));
  });
  for (const signal of signalsOf(commands)) await branch.apply(at, signal);
  if (admitNeedsWake(status, runtime.nowMs())) await branch.wake();
}

/**
 * Changes one signal carries at most: about 200 bytes of JSON each, so a signal stays far below the
 * smallest backend message limit (the Durable Task Scheduler's 1 MiB) while an audit batch (400
 * events) still takes one entity operation.
 */
export const CHANGES_PER_SIGNAL = 1_000;

/** The commands cut into signals of at most `CHANGES_PER_SIGNAL` changes, in order. */
export function signalsOf(commands: readonly BranchCommand[]): BranchCommand[][] {
  const signals: BranchCommand[][] = [[]];
  let room = CHANGES_PER_SIGNAL;
  for (const command of commands) {
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

function authorOf(change: Change, target: ResolvedTarget): Author {
  const identity = commitAuthor(change.author, target.repository.committer, target.authors);
  return change.author ? { ...identity, username: change.author.username } : identity;
}

function admitted(change: Change, bytes: number, payloadRef: string | undefined): AdmittedChange {
  const { identity } = change;
  return {
    path: change.path,
    operation: change.operation,
    bytes,
    ...(payloadRef ? { payloadRef } : {}),
    ...(change.resourceVersion ? { resourceVersion: change.resourceVersion } : {}),
    subject: {
      apiVersion: identity.group ? `${identity.group}/${identity.version}` : identity.version,
      resource: identity.resource,
      ...(identity.namespace ? { namespace: identity.namespace } : {}),
      name: identity.name,
    },
    ...(change.operation === 'delete'
      ? { verb: 'delete' as const }
      : change.created
        ? { verb: 'create' as const }
        : {}),
  };
}
