/**
 * The durable client operations the extension's local RPC API offers (start, status, events,
 * terminate, purge, entities, list). Each acknowledged change is committed before it returns.
 */
import { entityStateAsStored, signalAsStored } from './engine-semantics';
import type { HostContext } from './host-context';
import { createInstance, InstanceExistsError } from './instances';
import { EventType, entitySchedulerId, eventTypeName, type HistoryEvent, isTerminal } from './protocol';
import type { InstanceRow } from './store';

/** The status of an instance as the extension's RPC API returns it. */
export interface InstanceStatus {
  name: string;
  instanceId: string;
  runtimeStatus: string;
  input: unknown;
  customStatus: unknown;
  output: unknown;
  createdTime: string;
  lastUpdatedTime: string;
  history?: Record<string, unknown>[];
}

/** Filters of list and purge. */
export interface InstanceFilter {
  createdTimeFrom?: number;
  createdTimeTo?: number;
  runtimeStatus?: string[];
}

/** Creates the client operations over the host's store. */
export function clientApi(host: HostContext) {
  const { store, clock } = host;
  const matching = (f: InstanceFilter): InstanceRow[] =>
    store
      .listInstances(f.createdTimeFrom ?? 0, f.createdTimeTo ?? Number.MAX_SAFE_INTEGER)
      .filter((i) => !f.runtimeStatus?.length || f.runtimeStatus.includes(i.status));
  return {
    /**
     * Starts an orchestration, stamped with `version` (default: host.json's `defaultVersion`);
     * refuses (InstanceExistsError) if the id is taken by a running instance.
     */
    startNew(name: string, options: { instanceId?: string; input?: unknown; version?: string } = {}): string {
      const fn = host.findFunction(name, 'orchestrationTrigger');
      if (!fn) throw new UnknownFunctionError(`No orchestrator function named '${name}' is registered.`);
      const input = JSON.stringify(options.input ?? null);
      host.engine.checkPayload('message', `the input of '${fn.name}'`, input);
      let row: InstanceRow;
      try {
        row = store.transaction(() =>
          createInstance(store, clock.now(), {
            instanceId: options.instanceId,
            name: fn.name,
            input: options.input,
            version: options.version ?? host.versioning.defaultVersion,
          }),
        );
      } catch (e) {
        throw e instanceof InstanceExistsError ? host.engine.instanceExists(e) : e;
      }
      host.engine.countClientStart(input);
      host.wake([row.instanceId]);
      return row.instanceId;
    },
    getStatus(
      instanceId: string,
      options: { showHistory?: boolean; showHistoryOutput?: boolean; showInput?: boolean } = {},
    ): InstanceStatus | undefined {
      const row = store.getInstance(instanceId);
      host.engine.countClientRead(() =>
        row ? [row.input, row.output, row.customStatus].map((value) => JSON.stringify(value ?? null)) : [],
      );
      if (!row) return undefined;
      const status = toStatus(row, options.showInput !== false);
      if (options.showHistory) {
        // and the history's partition, one query more (its payloads left uncounted)
        host.engine.countClientRead(() => []);
        status.history = store
          .history(instanceId)
          .flatMap((e) => friendlyEvent(e, options.showHistoryOutput === true));
      }
      return status;
    },
    list(filter: InstanceFilter = {}): InstanceStatus[] {
      return matching(filter).map((r) => toStatus(r, true));
    },
    /** Queues an external event: 'accepted', or 'not-found', or 'gone' (the instance finished). */
    raiseEvent(instanceId: string, name: string, data: unknown): 'accepted' | 'not-found' | 'gone' {
      const payload = JSON.stringify(data ?? null);
      host.engine.checkPayload('message', `the event '${name}'`, payload);
      const outcome = store.transaction(() => {
        const row = store.getInstance(instanceId);
        if (!row) return 'not-found' as const;
        if (isTerminal(row.status)) return 'gone' as const;
        store.enqueue(instanceId, {
          kind: 'event',
          event: {
            EventType: EventType.EventRaised,
            EventId: -1,
            Name: name,
            Input: payload,
          },
        });
        return 'accepted' as const;
      });
      if (outcome === 'accepted') {
        host.engine.countClientMessage(payload);
        host.wake([instanceId]);
      }
      return outcome;
    },
    terminate(instanceId: string, reason: string | null): 'accepted' | 'not-found' | 'gone' {
      const outcome = store.transaction(() => {
        const row = store.getInstance(instanceId);
        if (!row) return 'not-found' as const;
        if (isTerminal(row.status)) return 'gone' as const;
        const now = clock.now();
        store.deleteMessagesOf(instanceId);
        store.deleteTimersOf(instanceId);
        store.appendHistory(instanceId, store.historyLength(instanceId), [
          {
            EventType: EventType.ExecutionTerminated,
            EventId: -1,
            Timestamp: new Date(now).toISOString(),
            Input: JSON.stringify(reason),
          },
        ]);
        store.putInstance({ ...row, status: 'Terminated', output: reason, updatedAt: now });
        return 'accepted' as const;
      });
      if (outcome === 'accepted') {
        host.engine.countDispatched('terminations');
        host.log('info', 'OrchestrationTerminated', { instanceId, reason });
      }
      return outcome;
    },
    /** Deletes a finished instance and its history; returns how many were deleted (0 or 1). */
    purge(instanceId: string): number {
      return store.transaction(() => {
        const row = store.getInstance(instanceId);
        if (!row || !isTerminal(row.status)) return 0;
        store.purgeInstance(instanceId);
        return 1;
      });
    },
    purgeBy(filter: InstanceFilter): number {
      return store.transaction(() => {
        const rows = matching(filter).filter((r) => isTerminal(r.status));
        for (const r of rows) store.purgeInstance(r.instanceId);
        return rows.length;
      });
    },
    signalEntity(name: string, key: string, operation: string, input: string | null): void {
      const id = entitySchedulerId(name, key);
      // Measured as the backend stores it: the request message, escaped once more on Azure Storage.
      const stored = signalAsStored(host.engine.semantics, id, operation, input);
      host.engine.checkPayload('message', `the signal '${operation}' to ${id}`, stored);
      host.engine.countClientMessage(stored);
      // Faithful modes: a client signal may be delivered twice (Azure Storage delivers at least
      // once), and minutes late when its partition moves.
      const now = host.clock.now();
      store.transaction(() => {
        for (const delayMs of host.engine.clientSignalDeliveries()) {
          const queued = store.enqueue(id, {
            kind: 'op',
            name: operation,
            input,
            isSignal: true,
            fromClient: true,
          });
          if (delayMs === 0) continue;
          host.engine.hideUntil(queued, now + delayMs);
          host.clock.at(now + delayMs, () => host.wake([id]));
        }
      });
      host.wake([id]);
    },
    /** The entity's state, or undefined if it does not exist. */
    readEntityState(name: string, key: string): { exists: false } | { exists: true; state: unknown } {
      const e = store.getEntity(entitySchedulerId(name, key));
      host.engine.countClientRead(() => (e?.exists ? [entityStateAsStored(true, e.state, [])] : []));
      if (!e?.exists) return { exists: false };
      return { exists: true, state: e.state === null ? null : JSON.parse(e.state) };
    },
  };
}

export type ClientApi = ReturnType<typeof clientApi>;

/** Starting an orchestration that is not registered. */
export class UnknownFunctionError extends Error {}

function toStatus(r: InstanceRow, showInput: boolean): InstanceStatus {
  return {
    name: r.name,
    instanceId: r.instanceId,
    runtimeStatus: r.status,
    input: showInput ? r.input : null,
    customStatus: r.customStatus,
    output: r.output,
    createdTime: new Date(r.createdAt).toISOString(),
    lastUpdatedTime: new Date(r.updatedAt).toISOString(),
  };
}

/** History in the status API's shape: event type names, episode markers left out. */
function friendlyEvent(e: HistoryEvent, withOutput: boolean): Record<string, unknown>[] {
  if (e.EventType === EventType.OrchestratorStarted || e.EventType === EventType.OrchestratorCompleted)
    return [];
  const out: Record<string, unknown> = { EventType: eventTypeName(e.EventType), Timestamp: e.Timestamp };
  if (e.EventId >= 0) out.EventId = e.EventId;
  if (e.Name !== undefined) out.Name = e.Name;
  if (e.TaskScheduledId !== undefined) out.TaskScheduledId = e.TaskScheduledId;
  if (e.TimerId !== undefined) out.TimerId = e.TimerId;
  if (e.FireAt !== undefined) out.FireAt = e.FireAt;
  if (e.InstanceId !== undefined) out.InstanceId = e.InstanceId;
  if (e.Reason !== undefined) out.Reason = e.Reason;
  if (withOutput) {
    if (e.Input !== undefined) out.Input = e.Input;
    if (e.Result !== undefined) out.Result = e.Result;
  }
  return [out];
}
