/**
 * Creating orchestration instances, shared by the client API (startNew) and sub-orchestrations.
 * Runs inside the caller's transaction.
 */
import { randomUUID } from 'node:crypto';
import { newRuntime } from './orchestration-actions';
import { EventType, isTerminal } from './protocol';
import type { InstanceRow, Store } from './store';

/** Starting an instance whose id is taken by a running one (the extension's NonRunningStates rule). */
export class InstanceExistsError extends Error {
  constructor(
    readonly instanceId: string,
    readonly status: string,
  ) {
    super(`An orchestration instance with the id '${instanceId}' and the status ${status} already exists.`);
  }
}

/** An instance id the extension would refuse. */
export class InvalidInstanceIdError extends Error {}

/** Checks an instance id as the extension does: 1–256 chars, no `/ \ ? #`, no control chars, not `@…`. */
export function checkInstanceId(id: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (id.length === 0 || id.length > 256 || /[/\\?#\u0000-\u001f\u007f]/.test(id) || id.startsWith('@')) {
    throw new InvalidInstanceIdError(
      `Invalid instance id '${id}': 1 to 256 characters, without / \\ ? # or control characters, not starting with @.`,
    );
  }
}

/**
 * Creates (or restarts, if finished) an instance and queues its ExecutionStarted event. A running
 * instance with the same id is refused with {@link InstanceExistsError}.
 */
export function createInstance(
  store: Store,
  now: number,
  options: {
    instanceId?: string;
    name: string;
    input: unknown;
    parent?: InstanceRow['parent'];
    /** The orchestration version it is stamped with (default '': none). */
    version?: string;
  },
): InstanceRow {
  const instanceId = options.instanceId ?? randomUUID().replace(/-/g, '');
  checkInstanceId(instanceId);
  const existing = store.getInstance(instanceId);
  if (existing && !isTerminal(existing.status)) throw new InstanceExistsError(instanceId, existing.status);
  if (existing) store.purgeInstance(instanceId);
  const row: InstanceRow = {
    instanceId,
    name: options.name,
    executionId: randomUUID(),
    status: 'Pending',
    input: options.input ?? null,
    output: null,
    customStatus: null,
    createdAt: now,
    updatedAt: now,
    parent: options.parent ?? null,
    runtime: JSON.stringify(newRuntime()),
    version: options.version ?? '',
  };
  store.putInstance(row);
  store.enqueue(instanceId, { kind: 'event', executionId: row.executionId, event: startedEvent(row) });
  return row;
}

/** The ExecutionStarted event of an execution. */
export function startedEvent(row: InstanceRow) {
  return {
    EventType: EventType.ExecutionStarted,
    EventId: -1,
    Name: row.name,
    Input: JSON.stringify(row.input ?? null),
    Version: row.version,
  };
}
