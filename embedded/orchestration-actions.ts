/**
 * Turns an orchestrator's new actions into scheduled work, giving each the event id the SDK gave it
 * (its own sequence counter, in action order), and keeps DTFx's retry bookkeeping: after every failure
 * of a *WithRetry task the host creates a timer, and when it fires, schedules the task again.
 */
import { randomUUID } from 'node:crypto';
import {
  type Action,
  ActionType,
  describeAction,
  EventType,
  type HistoryEvent,
  unwrapInput,
} from './protocol';
import type { Message } from './store';

/** What the host scheduled for an event id, persisted with the instance. */
interface Scheduled {
  kind: 'activity' | 'subOrchestration' | 'timer' | 'retryTimer';
  retryKey?: number;
}

/** The per-execution state the host keeps to stay in lock-step with the SDK's replay. */
export interface ExecutionRuntime {
  nextEventId: number;
  /** Descriptions of the actions already seen, in order (the nondeterminism check). */
  known: string[];
  /** Event id given to each known action (null for actions without one). */
  actionEventIds: (number | null)[];
  scheduled: Record<string, Scheduled>;
  retries: Record<string, { action: Action; attempt: number }>;
}

/** A fresh runtime for a new execution. */
export function newRuntime(): ExecutionRuntime {
  return { nextEventId: 0, known: [], actionEventIds: [], scheduled: {}, retries: {} };
}

/** The work an episode produces, applied in the episode's transaction. */
export interface EpisodeEffects {
  history: HistoryEvent[];
  messages: { target: string; message: Message }[];
  activities: { taskId: number; name: string; input: unknown }[];
  timers: { timerId: number; fireAt: number }[];
  canceledTimers: number[];
  children: { instanceId: string; name: string; input: unknown; taskId: number }[];
}

/** Raised when an orchestrator uses an action the embedded host cannot run. */
export class UnsupportedActionError extends Error {}

/** No effects yet. */
export function emptyEffects(): EpisodeEffects {
  return { history: [], messages: [], activities: [], timers: [], canceledTimers: [], children: [] };
}

/** Whether this event must be alone in its episode: the SDK allocates an event id while processing it. */
export function isRetryEvent(rt: ExecutionRuntime, e: HistoryEvent): boolean {
  if (e.EventType === EventType.TaskFailed || e.EventType === EventType.SubOrchestrationInstanceFailed) {
    return rt.scheduled[String(e.TaskScheduledId)]?.retryKey !== undefined;
  }
  if (e.EventType === EventType.TimerFired) return rt.scheduled[String(e.TimerId)]?.kind === 'retryTimer';
  return false;
}

interface Context {
  rt: ExecutionRuntime;
  fx: EpisodeEffects;
  instanceId: string;
  executionId: string;
  now: number;
  ts: string;
  /** The real engine still fires a timer the orchestrator cancelled (its message is already sent). */
  firesCancelledTimers?: boolean;
}

/** Applies the retry bookkeeping DTFx does inside CallActivityWithRetry for the episode's first event. */
export function applyRetry(c: Context, first: HistoryEvent): void {
  const { rt } = c;
  if (
    first.EventType === EventType.TaskFailed ||
    first.EventType === EventType.SubOrchestrationInstanceFailed
  ) {
    const key = rt.scheduled[String(first.TaskScheduledId)]?.retryKey;
    const retry = key === undefined ? undefined : rt.retries[String(key)];
    if (key === undefined || !retry?.action.retryOptions) return;
    const o = retry.action.retryOptions;
    const delay = Math.min(
      o.firstRetryIntervalInMilliseconds * (o.backoffCoefficient ?? 1) ** (retry.attempt - 1),
      o.maxRetryIntervalInMilliseconds && o.maxRetryIntervalInMilliseconds > 0
        ? o.maxRetryIntervalInMilliseconds
        : Infinity,
    );
    const timerId = rt.nextEventId++;
    const fireAt = c.now + Math.max(0, delay);
    rt.scheduled[String(timerId)] = { kind: 'retryTimer', retryKey: key };
    c.fx.history.push({
      EventType: EventType.TimerCreated,
      EventId: timerId,
      Timestamp: c.ts,
      FireAt: iso(fireAt),
    });
    c.fx.timers.push({ timerId, fireAt });
  } else if (first.EventType === EventType.TimerFired) {
    const s = rt.scheduled[String(first.TimerId)];
    if (s?.kind !== 'retryTimer' || s.retryKey === undefined) return;
    const retry = rt.retries[String(s.retryKey)];
    if (!retry?.action.retryOptions || retry.attempt >= retry.action.retryOptions.maxNumberOfAttempts) return;
    retry.attempt++;
    scheduleAction(c, retry.action, s.retryKey);
  }
}

/**
 * Compares the cumulative action list with the actions already known, schedules the new ones, and
 * cancels timers the orchestrator cancelled. Returns a nondeterminism message if the replay differs.
 */
export function applyActions(c: Context, actions: Action[]): string | undefined {
  const { rt } = c;
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]!;
    const description = describeAction(a);
    if (i < rt.known.length) {
      if (rt.known[i] !== description) {
        return (
          `Non-deterministic workflow detected: action #${i} was ${rt.known[i]} in the history ` +
          `but the replay produced ${description}.`
        );
      }
      const id = rt.actionEventIds[i];
      if (a.actionType === ActionType.CreateTimer && a.isCanceled && id !== null && id !== undefined) {
        c.fx.canceledTimers.push(id);
      }
      continue;
    }
    rt.known.push(description);
    rt.actionEventIds.push(scheduleAction(c, a));
  }
  return undefined;
}

function scheduleAction(c: Context, a: Action, retryKey?: number): number | null {
  const { rt, fx } = c;
  switch (a.actionType) {
    case ActionType.CallActivity:
    case ActionType.CallActivityWithRetry: {
      const id = rt.nextEventId++;
      const key = retryKey ?? (a.actionType === ActionType.CallActivityWithRetry ? id : undefined);
      if (key === id) rt.retries[String(id)] = { action: a, attempt: 1 };
      rt.scheduled[String(id)] = { kind: 'activity', retryKey: key };
      const input = unwrapInput(a.input);
      fx.history.push({
        EventType: EventType.TaskScheduled,
        EventId: id,
        Timestamp: c.ts,
        Name: a.functionName,
        Input: JSON.stringify(input),
      });
      fx.activities.push({ taskId: id, name: a.functionName ?? '', input });
      return id;
    }
    case ActionType.CallSubOrchestrator:
    case ActionType.CallSubOrchestratorWithRetry: {
      const id = rt.nextEventId++;
      const key = retryKey ?? (a.actionType === ActionType.CallSubOrchestratorWithRetry ? id : undefined);
      if (key === id) rt.retries[String(id)] = { action: a, attempt: 1 };
      rt.scheduled[String(id)] = { kind: 'subOrchestration', retryKey: key };
      const childId = a.instanceId || `${c.instanceId}:${id}`;
      const input = unwrapInput(a.input);
      fx.history.push({
        EventType: EventType.SubOrchestrationInstanceCreated,
        EventId: id,
        Timestamp: c.ts,
        Name: a.functionName,
        InstanceId: childId,
        Input: JSON.stringify(input),
      });
      fx.children.push({ instanceId: childId, name: a.functionName ?? '', input, taskId: id });
      return id;
    }
    case ActionType.CreateTimer: {
      const id = rt.nextEventId++;
      const fireAt = Date.parse(a.fireAt ?? '');
      rt.scheduled[String(id)] = { kind: 'timer' };
      fx.history.push({
        EventType: EventType.TimerCreated,
        EventId: id,
        Timestamp: c.ts,
        FireAt: iso(fireAt),
      });
      if (!a.isCanceled || c.firesCancelledTimers) fx.timers.push({ timerId: id, fireAt });
      return id;
    }
    case ActionType.CallEntity:
    case ActionType.SignalEntity: {
      const id = rt.nextEventId++;
      const isSignal = a.actionType === ActionType.SignalEntity;
      const reqId = randomUUID();
      const input = a.input === undefined ? null : JSON.stringify(a.input);
      const target = a.instanceId ?? '';
      const request = { id: reqId, op: a.operation, signal: isSignal, input, parent: c.instanceId };
      fx.history.push({
        EventType: EventType.EventSent,
        EventId: id,
        Timestamp: c.ts,
        InstanceId: target,
        Name: 'op',
        Input: JSON.stringify(request),
      });
      fx.messages.push({
        target,
        message: {
          kind: 'op',
          name: a.operation ?? '',
          input,
          isSignal,
          ...(isSignal ? {} : { reqId, parent: { instanceId: c.instanceId, executionId: c.executionId } }),
        },
      });
      return id;
    }
    case ActionType.WaitForExternalEvent:
    case ActionType.ContinueAsNew:
      return null;
    case ActionType.CallHttp:
      throw new UnsupportedActionError('The embedded host does not support callHttp (durable HTTP calls).');
    default:
      throw new UnsupportedActionError(
        `The embedded host does not support the ${describeAction(a)} action (it needs OOProc schema V4).`,
      );
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
