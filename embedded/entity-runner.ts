/**
 * Runs one entity batch: up to `maxBatch` queued operations of one entity in one invocation (the
 * extension's out-of-proc entity protocol), then commits the new state, the answers to calling
 * orchestrations and the signals the operations sent, in one transaction.
 */
import { CONTROL_QUEUE_BATCH_SIZE, entityStateAsStored, PayloadTooLargeError } from './engine-semantics';
import type { HostContext } from './host-context';
import { invokeFunction, typedDataValue } from './invoke';
import { ENTITY_VERSION, VERSION_MISMATCH, versionMismatch } from './orchestration-versioning';
import {
  type EntityBatchResult,
  EventType,
  entityBatchResultSchema,
  entitySchedulerId,
  parseSchedulerId,
} from './protocol';
import type { StoredMessage } from './store';

type OpMessage = StoredMessage & { message: { kind: 'op' } };

/**
 * Runs one batch of an entity's queued operations, if there are any. 'rejected': this worker's
 * versioning refuses entities (their version is empty) and the batch stays queued; `held` when
 * every queued message is hidden until its visibility timeout ends (a clock wake takes it up then).
 */
export async function runEntityBatch(
  host: HostContext,
  entityId: string,
  maxBatch: number,
): Promise<'rejected' | 'held' | undefined> {
  const { store } = host;
  const peeked = store.peek(entityId, maxBatch + host.engine.hiddenMessages());
  if (peeked.length === 0) return undefined;
  const refused = versionMismatch(host.versioning, ENTITY_VERSION);
  if (refused) return refuseBatch(host, entityId, peeked.slice(0, maxBatch), refused);
  // Faithful modes: client signals may be taken out of order (they bypass the message sorter), and
  // one back from a partition move is not seen before its visibility timeout.
  const queued = host.engine.orderEntityBatch(peeked, host.clock.now()).slice(0, maxBatch);
  if (queued.length === 0) return 'held';
  const ops = queued.filter((m): m is OpMessage => m.message.kind === 'op');
  const current = store.getEntity(entityId) ?? { exists: false, state: null };
  const { name, key } = parseSchedulerId(entityId);
  const generation = host.engine.workerGeneration();
  let result = await invokeEntity(host, name, key, current, ops);
  // A worker restarted while the batch ran (a function timeout): its result is void, the batch runs again.
  if (host.stopping() || host.engine.workerGeneration() !== generation) return undefined;
  try {
    if (host.engine.semantics !== 'exact') {
      // Measured as stored: the extension's scheduler state, the state escaped into it, plus the
      // requests waiting past this batch (up to one more fetch of the control queue).
      const taken = new Set(queued.map((m) => m.id));
      const waiting = store
        .peek(entityId, maxBatch + host.engine.hiddenMessages() + CONTROL_QUEUE_BATCH_SIZE)
        .filter((m): m is OpMessage => !taken.has(m.id) && m.message.kind === 'op');
      host.engine.checkPayload(
        'property',
        `the state of ${entityId}`,
        entityStateAsStored(
          result.entityExists,
          result.entityState,
          waiting.map((m) => ({ name: m.message.name, input: m.message.input })),
        ),
      );
    }
  } catch (e) {
    if (!(e instanceof PayloadTooLargeError)) throw e;
    result = failedBatch(host, name, key, current, ops, e.message);
  }
  host.log('debug', 'EntityBatchRan', { entity: entityId, operations: ops.length });
  host.engine.countDispatched('entityOperations', ops.length);
  const woken = new Set<string>();
  const outbound: string[] = [];
  store.transaction(() => {
    for (const m of queued) store.deleteMessage(m.id);
    store.putEntity(entityId, result.entityExists, result.entityState ?? null, host.clock.now());
    ops.forEach((op, i) => {
      const { reqId, parent } = op.message;
      if (op.message.isSignal || !reqId || !parent) return;
      const r = result.results[i] ?? { isError: false };
      const answer = r.isError ? { result: r.result, exceptionType: 'Error' } : { result: r.result };
      const answerEvent = {
        EventType: EventType.EventRaised,
        EventId: -1,
        Name: reqId,
        Input: JSON.stringify(answer),
      };
      store.enqueue(parent.instanceId, {
        kind: 'event',
        executionId: parent.executionId,
        event: answerEvent,
      });
      outbound.push(answerEvent.Input);
      woken.add(parent.instanceId);
    });
    for (const s of result.signals ?? []) {
      const target = entitySchedulerId(s.target.name, s.target.key);
      store.enqueue(target, { kind: 'op', name: s.name, input: s.input || null, isSignal: true });
      outbound.push(s.input || '');
      woken.add(target);
    }
  });
  host.engine.countEntityBatch(() => ({
    consumed: queued.map((m) =>
      m.message.kind === 'op' ? (m.message.input ?? '') : JSON.stringify(m.message),
    ),
    stateBefore: current.exists ? current.state : null,
    stateAfter: result.entityExists ? (result.entityState ?? null) : null,
    outbound,
  }));
  host.wake(woken);
  return undefined;
}

/**
 * A batch the worker's versioning gate refuses, as the engine treats an entity's work item for a
 * Node app (TaskOrchestrationDispatcher.cs lines 398-432, at Azure/durabletask 5217032): `Reject`
 * abandons it, so it waits; `Fail` fails the entity's instance with VersionMismatch, which answers
 * no caller and drops its operations (the engine drops later messages to a failed instance too,
 * and this gate refuses each later batch the same way). The state is left as it was.
 */
function refuseBatch(
  host: HostContext,
  entityId: string,
  queued: StoredMessage[],
  reason: string,
): 'rejected' | undefined {
  const { name, key } = parseSchedulerId(entityId);
  if (host.versioning.versionFailureStrategy === 'Reject') {
    host.log('warn', 'EntityVersionRejected', { entity: name, key, reason });
    return 'rejected';
  }
  host.log('warn', 'EntityVersionFailed', {
    entity: name,
    key,
    reason,
    error: `${VERSION_MISMATCH.errorType}: ${VERSION_MISMATCH.message}`,
    operations: queued.length,
  });
  host.store.transaction(() => {
    for (const m of queued) host.store.deleteMessage(m.id);
  });
  return undefined;
}

/** A batch whose every operation failed: the state stays as it was and no signal is sent. */
function failedBatch(
  host: HostContext,
  name: string,
  key: string,
  current: { exists: boolean; state: string | null },
  ops: OpMessage[],
  message: string,
): EntityBatchResult {
  host.log('warn', 'EntityBatchFailed', { entity: name, key, error: message, operations: ops.length });
  return {
    entityExists: current.exists,
    entityState: current.state,
    signals: [],
    results: ops.map(() => ({ isError: true, result: JSON.stringify(message) })),
  };
}

async function invokeEntity(
  host: HostContext,
  name: string,
  key: string,
  current: { exists: boolean; state: string | null },
  ops: OpMessage[],
): Promise<EntityBatchResult> {
  const failAll = (message: string) => failedBatch(host, name, key, current, ops, message);
  const fn = host.findFunction(name, 'entityTrigger');
  if (!fn) return failAll(`The entity function '${name}' does not exist.`);
  const trigger = {
    self: { name, key },
    exists: current.exists,
    state: current.state,
    batch: ops.map((o) => ({ name: o.message.name, input: o.message.input, isSignal: o.message.isSignal })),
  };
  try {
    const out = await invokeFunction({
      fn,
      inputs: [{ name: fn.triggerName, data: { string: JSON.stringify(trigger) } }, ...host.clientInputs(fn)],
      log: host.functionLog,
    });
    return entityBatchResultSchema.parse(typedDataValue(out));
  } catch (e) {
    return failAll(e instanceof Error ? e.message : String(e));
  }
}
