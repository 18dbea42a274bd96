/**
 * Runs one orchestration episode: takes the instance's queued events, replays the full history plus
 * the new events through the orchestrator (out-of-proc schema V3, as the extension sends it), checks
 * the replay against the known actions, schedules the new ones, and commits it all in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { PayloadTooLargeError } from './engine-semantics';
import type { HostContext } from './host-context';
import { startedEvent } from './instances';
import { invokeFunction, typedDataValue } from './invoke';
import {
  applyActions,
  applyRetry,
  type EpisodeEffects,
  type ExecutionRuntime,
  emptyEffects,
  isRetryEvent,
  newRuntime,
  UnsupportedActionError,
} from './orchestration-actions';
import { notifyParent, startChild } from './orchestration-links';
import { VERSION_MISMATCH, versionMismatch } from './orchestration-versioning';
import {
  ActionType,
  EventType,
  flattenActions,
  type HistoryEvent,
  isTerminal,
  type OrchestratorState,
  OUT_OF_PROC_LABEL,
  orchestratorStateSchema,
  unwrapInput,
} from './protocol';
import { actionOfMessage } from './scheduler-actions';
import type { InstanceRow, Message, StoredMessage } from './store';

const MAX_EVENTS_PER_EPISODE = 1000;

type Outcome =
  | { kind: 'running' }
  | { kind: 'completed'; output: unknown }
  | { kind: 'failed'; error: string }
  | { kind: 'continuedAsNew'; input: unknown };

/**
 * Runs one episode of an instance, if it has queued events. 'rejected': the instance's version is
 * not one this host runs and its work stays queued (versionFailureStrategy Reject).
 */
export async function runEpisode(host: HostContext, instanceId: string): Promise<'rejected' | undefined> {
  const { store, clock } = host;
  const inst = store.getInstance(instanceId);
  const queued = store.peek(instanceId, MAX_EVENTS_PER_EPISODE);
  if (queued.length === 0) return;
  if (!inst || isTerminal(inst.status)) {
    // Events for a finished or purged instance are dropped, as the extension does.
    store.transaction(() => {
      for (const m of queued) store.deleteMessage(m.id);
    });
    return;
  }
  const rt = JSON.parse(inst.runtime) as ExecutionRuntime;
  const consumed: number[] = [];
  const events: HistoryEvent[] = [];
  for (const m of queued) {
    const stale =
      m.message.kind !== 'event' || (m.message.executionId && m.message.executionId !== inst.executionId);
    if (stale) {
      consumed.push(m.id);
      continue;
    }
    if (m.message.kind !== 'event') continue;
    const retry = isRetryEvent(rt, m.message.event);
    // A retry event must be alone in its episode: the SDK gives out an event id while processing it.
    if (events.length > 0 && retry) break;
    consumed.push(m.id);
    events.push(m.message.event);
    if (retry) break;
  }
  if (events.length === 0) {
    store.transaction(() => {
      for (const id of consumed) store.deleteMessage(id);
    });
    return;
  }

  const now = clock.now();
  const ts = new Date(now).toISOString();
  const past = store.history(instanceId);
  const fresh: HistoryEvent[] = [
    { EventType: EventType.OrchestratorStarted, EventId: -1, Timestamp: ts, IsPlayed: false },
    ...events.map((e) => ({ ...e, Timestamp: ts, IsPlayed: false })),
  ];
  const mismatch = versionMismatch(host.versioning, inst.version);
  if (mismatch) {
    // As the engine does: the instance's history is never replayed by a worker that refuses its version.
    if (host.versioning.versionFailureStrategy === 'Reject') {
      host.log('warn', 'OrchestrationVersionRejected', {
        instanceId,
        name: inst.name,
        version: inst.version,
        reason: mismatch,
      });
      return 'rejected';
    }
    host.log('warn', 'OrchestrationVersionFailed', {
      instanceId,
      name: inst.name,
      version: inst.version,
      reason: mismatch,
    });
    const fx = emptyEffects();
    fx.history.push(...fresh, { EventType: EventType.OrchestratorCompleted, EventId: -1, Timestamp: ts });
    commit(host, inst, {
      rt,
      fx,
      consumed,
      dispatched: dispatchedOf(queued, consumed),
      outcome: { kind: 'failed', error: `${VERSION_MISMATCH.errorType}: ${VERSION_MISMATCH.message}` },
      customStatus: undefined,
      past,
      now,
    });
    return undefined;
  }
  const generation = host.engine.workerGeneration();
  const { state, error } = await invokeOrchestrator(host, inst, [
    ...past.map((e) => ({ ...e, IsPlayed: true })),
    ...fresh,
  ]);
  // A worker restarted while the episode ran (a function timeout): it is replayed from its messages.
  if (host.stopping() || host.engine.workerGeneration() !== generation) return;

  const fx = emptyEffects();
  fx.history.push(...fresh);
  const c = {
    rt,
    fx,
    instanceId,
    executionId: inst.executionId,
    now,
    ts,
    firesCancelledTimers: !host.engine.deletesCancelledTimers,
  };
  let outcome: Outcome;
  try {
    const first = events[0]!;
    applyRetry(c, first);
    const actions = state ? flattenActions(state) : [];
    const nondeterminism = applyActions(c, actions);
    if (nondeterminism) outcome = { kind: 'failed', error: nondeterminism };
    else if (error !== undefined) outcome = { kind: 'failed', error };
    else if (!state?.isDone) outcome = { kind: 'running' };
    else {
      const can = actions.find((a) => a.actionType === ActionType.ContinueAsNew);
      outcome = can
        ? { kind: 'continuedAsNew', input: unwrapInput(can.input) }
        : { kind: 'completed', output: state.output ?? null };
    }
  } catch (e) {
    if (!(e instanceof UnsupportedActionError)) throw e;
    outcome = { kind: 'failed', error: e.message };
  }
  outcome = checkAgainstBackend(host, inst, fx, outcome, state?.customStatus);
  fx.history.push({ EventType: EventType.OrchestratorCompleted, EventId: -1, Timestamp: ts });
  commit(host, inst, {
    rt,
    fx,
    consumed,
    dispatched: dispatchedOf(queued, consumed),
    outcome,
    customStatus: state?.customStatus,
    past,
    now,
  });
  return undefined;
}

/**
 * The limits the real engine puts on an episode's payloads (faithful modes): the extension's 16 KB
 * custom status, and the backend's message and table sizes (dts refuses, Azure Storage counts).
 * A refused episode fails the instance and sends nothing.
 */
function checkAgainstBackend(
  host: HostContext,
  inst: InstanceRow,
  fx: EpisodeEffects,
  outcome: Outcome,
  customStatus: unknown,
): Outcome {
  const customStatusError = host.engine.customStatusError(customStatus);
  const refuse = (error: string): Outcome => {
    fx.messages.length = 0;
    return { kind: 'failed', error };
  };
  if (customStatusError) return refuse(customStatusError);
  const json = (v: unknown) => JSON.stringify(v ?? null);
  try {
    const check = host.engine.checkPayload;
    for (const a of fx.activities) check('message', `the input of activity '${a.name}'`, json(a.input));
    for (const c of fx.children)
      check('message', `the input of sub-orchestration '${c.name}'`, json(c.input));
    for (const m of fx.messages) {
      if (m.message.kind === 'op')
        check('message', `the operation '${m.message.name}' to ${m.target}`, m.message.input);
    }
    if (customStatus !== undefined)
      check('property', `the custom status of ${inst.instanceId}`, json(customStatus));
    if (outcome.kind === 'completed')
      check('property', `the output of ${inst.instanceId}`, json(outcome.output));
    if (outcome.kind === 'continuedAsNew')
      check('message', `the new input of ${inst.instanceId}`, json(outcome.input));
  } catch (e) {
    if (!(e instanceof PayloadTooLargeError)) throw e;
    return refuse(e.message);
  }
  return outcome;
}

async function invokeOrchestrator(
  host: HostContext,
  inst: InstanceRow,
  history: HistoryEvent[],
): Promise<{ state?: OrchestratorState; error?: string }> {
  const fn = host.findFunction(inst.name, 'orchestrationTrigger');
  if (!fn) return { error: `The orchestrator function '${inst.name}' does not exist.` };
  const trigger = {
    history,
    input: inst.input,
    instanceId: inst.instanceId,
    isReplaying: false,
    parentInstanceId: inst.parent?.instanceId ?? null,
    upperSchemaVersion: 1,
    upperSchemaVersionNew: 2,
    longRunningTimerIntervalDuration: '3.00:00:00',
    // No timer-length limit here, so the SDK never splits a long timer into chunks.
    maximumShortTimerDuration: '36500.00:00:00',
    defaultHttpAsyncRequestSleepTimeMillseconds: 30000,
  };
  try {
    const out = await invokeFunction({
      fn,
      inputs: [{ name: fn.triggerName, data: { string: JSON.stringify(trigger) } }, ...host.clientInputs(fn)],
      log: host.functionLog,
    });
    return { state: orchestratorStateSchema.parse(typedDataValue(out)) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = message.indexOf(OUT_OF_PROC_LABEL);
    if (at < 0) return { error: message };
    // The SDK puts the state (with the real error) after the label; its own message is a boolean.
    const state = orchestratorStateSchema.safeParse(JSON.parse(message.slice(at + OUT_OF_PROC_LABEL.length)));
    if (!state.success) return { error: message };
    return { state: state.data, error: state.data.error ?? 'The orchestrator failed.' };
  }
}

function commit(
  host: HostContext,
  inst: InstanceRow,
  r: {
    rt: ExecutionRuntime;
    fx: EpisodeEffects;
    consumed: number[];
    /** The consumed messages: what the backend dispatched to the app for this episode. */
    dispatched: Message[];
    outcome: Outcome;
    customStatus: unknown;
    past: HistoryEvent[];
    now: number;
  },
): void {
  const { store } = host;
  const { fx, outcome } = r;
  const woken = new Set<string>();
  const timers: ReturnType<typeof store.addTimer>[] = [];
  const activityIds: number[] = [];
  const committed = store.transaction(() => {
    const current = store.getInstance(inst.instanceId);
    // Terminated, purged or restarted while this episode ran: its result is void.
    if (!current || current.executionId !== inst.executionId || isTerminal(current.status)) return false;
    for (const id of r.consumed) store.deleteMessage(id);
    const next: InstanceRow = { ...current, updatedAt: r.now };
    if (r.customStatus !== undefined) next.customStatus = r.customStatus;
    if (outcome.kind === 'continuedAsNew') {
      store.clearHistory(inst.instanceId);
      store.deleteMessagesOf(inst.instanceId); // unprocessed external events are dropped, as on Azure
      store.deleteTimersOf(inst.instanceId);
      next.executionId = randomUUID();
      next.input = outcome.input;
      next.status = 'ContinuedAsNew';
      next.runtime = JSON.stringify(newRuntime());
      // The next execution keeps the instance's version: the engine takes `NewVersion ??
      // runtimeState.Version` (Azure/durabletask at 5217032, TaskOrchestrationDispatcher.cs line
      // 1075), and the JS SDK's continueAsNew sets no NewVersion.
      next.version = current.version;
      store.enqueue(inst.instanceId, {
        kind: 'event',
        executionId: next.executionId,
        event: startedEvent(next),
      });
      woken.add(inst.instanceId);
      store.putInstance(next);
      return true;
    }
    for (const m of fx.messages) {
      store.enqueue(m.target, m.message);
      woken.add(m.target);
    }
    if (outcome.kind === 'running') {
      for (const a of fx.activities) {
        activityIds.push(
          store.addActivity({ instanceId: inst.instanceId, executionId: inst.executionId, ...a }),
        );
      }
      for (const t of fx.timers) {
        timers.push(store.addTimer({ instanceId: inst.instanceId, executionId: inst.executionId, ...t }));
      }
      if (host.engine.deletesCancelledTimers) {
        for (const timerId of fx.canceledTimers)
          store.cancelTimer(inst.instanceId, inst.executionId, timerId);
      }
      for (const child of fx.children) startChild(host, inst, child, r.now, woken);
      next.status = 'Running';
    } else {
      store.deleteTimersOf(inst.instanceId);
      const failed = outcome.kind === 'failed';
      next.status = failed ? 'Failed' : 'Completed';
      next.output = failed ? outcome.error : outcome.output;
      fx.history.push({
        EventType: failed ? EventType.ExecutionFailed : EventType.ExecutionCompleted,
        EventId: -1,
        Timestamp: new Date(r.now).toISOString(),
        Result: JSON.stringify(next.output),
      });
      if (inst.parent) notifyParent(host, inst, next, woken);
    }
    store.appendHistory(inst.instanceId, r.past.length, fx.history);
    next.runtime = JSON.stringify(r.rt);
    store.putInstance(next);
    return true;
  });
  if (!committed) return;
  countEpisode(host, r);
  const continuing = inst.status === 'ContinuedAsNew';
  for (const message of r.dispatched) {
    const action = actionOfMessage(message, continuing);
    if (action) host.engine.countDispatched(action);
  }
  logOutcome(host, inst, outcome);
  host.armTimers(timers);
  host.queueActivities(activityIds);
  host.wake(woken);
}

/**
 * What the episode costs the Azure Storage backend (azure-storage mode; azure-storage-costs.ts):
 * its messages and payloads as the backend carries them, made only when the mode counts them.
 */
function countEpisode(
  host: HostContext,
  r: { fx: EpisodeEffects; dispatched: Message[]; customStatus: unknown; past: HistoryEvent[] },
): void {
  host.engine.countEpisode(() => {
    const { fx } = r;
    const payloads = (events: HistoryEvent[]) =>
      events.flatMap((e) => [e.Input, e.Result, e.Reason, e.Details].filter((p): p is string => !!p));
    // ATS 975-1000: the instance row takes the input of a new execution and the output of an ended one.
    const ends = fx.history.find(
      (e) =>
        e.EventType === EventType.ExecutionStarted ||
        e.EventType === EventType.ExecutionCompleted ||
        e.EventType === EventType.ExecutionFailed,
    );
    return {
      consumed: r.dispatched.map((m) => JSON.stringify(m)),
      pastProperties: payloads(r.past),
      newRows: fx.history.length,
      newProperties: payloads(fx.history),
      outbound: [
        ...fx.messages.map((m) => JSON.stringify(m.message)),
        ...fx.activities.map((a) => JSON.stringify(a.input ?? null)),
        ...fx.timers.map(() => ''),
        ...fx.children.map((child) => JSON.stringify(child.input ?? null)),
      ],
      input: ends ? (ends.Input ?? ends.Result ?? null) : null,
      customStatus: r.customStatus === undefined ? null : JSON.stringify(r.customStatus),
    };
  });
}

/** The messages an episode took, as stored: what the backend dispatched to the app for it. */
function dispatchedOf(queued: StoredMessage[], consumed: number[]): Message[] {
  const taken = new Set(consumed);
  return queued.filter((m) => taken.has(m.id)).map((m) => m.message);
}

function logOutcome(host: HostContext, inst: InstanceRow, outcome: Outcome): void {
  const fields = { instanceId: inst.instanceId, name: inst.name };
  if (outcome.kind === 'completed') host.log('info', 'OrchestrationCompleted', fields);
  else if (outcome.kind === 'failed')
    host.log('warn', 'OrchestrationFailed', { ...fields, error: outcome.error });
  else if (outcome.kind === 'continuedAsNew') host.log('debug', 'OrchestrationContinuedAsNew', fields);
}
