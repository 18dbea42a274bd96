import { z } from 'zod';

/**
 * The out-of-proc protocol between the durable extension and durable-functions v3 (schema V3):
 * history event and action type numbers, the shapes the SDK reads and returns, and the helpers that
 * read an orchestrator's cumulative action list.
 */

/** DTFx history event types, as numbered in durable-functions' HistoryEventType. */
export const EventType = {
  ExecutionStarted: 0,
  ExecutionCompleted: 1,
  ExecutionFailed: 2,
  ExecutionTerminated: 3,
  TaskScheduled: 4,
  TaskCompleted: 5,
  TaskFailed: 6,
  SubOrchestrationInstanceCreated: 7,
  SubOrchestrationInstanceCompleted: 8,
  SubOrchestrationInstanceFailed: 9,
  TimerCreated: 10,
  TimerFired: 11,
  OrchestratorStarted: 12,
  OrchestratorCompleted: 13,
  EventSent: 14,
  EventRaised: 15,
  ContinueAsNew: 16,
} as const;

const EVENT_NAMES = new Map<number, string>(Object.entries(EventType).map(([name, n]) => [n, name]));

/** The name of a history event type, as the status API shows it. */
export function eventTypeName(type: number): string {
  return EVENT_NAMES.get(type) ?? `Event${type}`;
}

/** Action types, as numbered in durable-functions' ActionType. */
export const ActionType = {
  CallActivity: 0,
  CallActivityWithRetry: 1,
  CallSubOrchestrator: 2,
  CallSubOrchestratorWithRetry: 3,
  ContinueAsNew: 4,
  CreateTimer: 5,
  WaitForExternalEvent: 6,
  CallEntity: 7,
  CallHttp: 8,
  SignalEntity: 9,
  WhenAny: 11,
  WhenAll: 12,
  LockEntities: 13,
  ReleaseEntities: 14,
} as const;

const ACTION_NAMES = new Map<number, string>(Object.entries(ActionType).map(([name, n]) => [n, name]));

/** A DTFx history event as the SDK reads it (PascalCase, as the extension serializes it). */
export interface HistoryEvent {
  EventType: number;
  EventId: number;
  Timestamp?: string;
  IsPlayed?: boolean;
  Name?: string;
  Input?: string | null;
  Result?: string | null;
  Reason?: string;
  Details?: string;
  TaskScheduledId?: number;
  TimerId?: number;
  FireAt?: string;
  InstanceId?: string;
  Version?: string;
}

/** Retry options as the SDK puts them on a *WithRetry action. */
export interface RetryOptions {
  firstRetryIntervalInMilliseconds: number;
  maxNumberOfAttempts: number;
  backoffCoefficient?: number;
  maxRetryIntervalInMilliseconds?: number;
  retryTimeoutInMilliseconds?: number;
}

/** One orchestrator action (flattened: WhenAll/WhenAny are opened up). */
export interface Action {
  actionType: number;
  functionName?: string;
  input?: unknown;
  instanceId?: string;
  operation?: string;
  externalEventName?: string;
  fireAt?: string;
  isCanceled?: boolean;
  retryOptions?: RetryOptions;
  compoundActions?: Action[];
}

/** What an orchestrator invocation returns (OrchestratorState). */
export interface OrchestratorState {
  isDone: boolean;
  actions: Action[][];
  output?: unknown;
  error?: string;
  customStatus?: unknown;
  schemaVersion: number;
}

/** What an entity invocation returns (EntityState). */
export interface EntityBatchResult {
  entityExists: boolean;
  entityState?: string | null;
  results: { isError: boolean; result?: string }[];
  signals: { target: { name: string; key: string }; name: string; input?: string }[];
}

const actionSchema: z.ZodType<Action> = z.lazy(() =>
  z.looseObject({
    actionType: z.number().int(),
    functionName: z.string().optional(),
    input: z.unknown().optional(),
    instanceId: z.string().optional(),
    operation: z.string().optional(),
    externalEventName: z.string().optional(),
    fireAt: z.string().optional(),
    isCanceled: z.boolean().optional(),
    retryOptions: z
      .looseObject({
        firstRetryIntervalInMilliseconds: z.number(),
        maxNumberOfAttempts: z.number(),
        backoffCoefficient: z.number().optional(),
        maxRetryIntervalInMilliseconds: z.number().optional(),
        retryTimeoutInMilliseconds: z.number().optional(),
      })
      .optional(),
    compoundActions: z.array(actionSchema).optional(),
  }),
);

/** What crosses the wire back from an orchestrator, checked before the host acts on it. */
export const orchestratorStateSchema: z.ZodType<OrchestratorState> = z.looseObject({
  isDone: z.boolean(),
  actions: z.array(z.array(actionSchema)),
  output: z.unknown().optional(),
  error: z.string().optional(),
  customStatus: z.unknown().optional(),
  schemaVersion: z.number().int(),
});

/** What crosses the wire back from an entity batch, checked before the host commits it. */
export const entityBatchResultSchema: z.ZodType<EntityBatchResult> = z.looseObject({
  entityExists: z.boolean(),
  entityState: z.string().nullish(),
  results: z.array(z.looseObject({ isError: z.boolean(), result: z.string().optional() })),
  signals: z.array(
    z.looseObject({
      target: z.looseObject({ name: z.string(), key: z.string() }),
      name: z.string(),
      input: z.string().optional(),
    }),
  ),
});

/** Opens WhenAll/WhenAny up, in the order the SDK allocated event ids. */
export function flattenActions(state: OrchestratorState): Action[] {
  const out: Action[] = [];
  const walk = (a: Action): void => {
    if (a.actionType === ActionType.WhenAll || a.actionType === ActionType.WhenAny) {
      for (const child of a.compoundActions ?? []) walk(child);
    } else out.push(a);
  };
  const lists = state.schemaVersion === 0 ? state.actions : state.actions.slice(0, 1);
  for (const list of lists) for (const a of list ?? []) walk(a);
  return out;
}

/** A short, human-readable name for an action, used to compare replays and in nondeterminism errors. */
export function describeAction(a: Action): string {
  const kind = ACTION_NAMES.get(a.actionType) ?? `Action${a.actionType}`;
  const target =
    a.functionName ?? a.externalEventName ?? (a.instanceId ? `${a.instanceId}.${a.operation}` : '');
  return target ? `${kind} '${target}'` : kind;
}

/** The scheduler id of an entity (`@name@key`, name lowercased as the extension does). */
export function entitySchedulerId(name: string, key: string): string {
  return `@${name.toLowerCase()}@${key}`;
}

/** Splits an entity scheduler id into name and key. */
export function parseSchedulerId(id: string): { name: string; key: string } {
  const at = id.indexOf('@', 1);
  return { name: id.substring(1, at), key: id.substring(at + 1) };
}

/** SDK inputs to activities, sub-orchestrations and continueAsNew are pre-serialized strings; undo it. */
export function unwrapInput(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The label that prefixes the orchestrator state inside an OrchestrationFailureError message. */
export const OUT_OF_PROC_LABEL = '$OutOfProcData$:';

const TERMINAL_STATUSES = ['Completed', 'Failed', 'Terminated'];

/** Whether an instance in this status is finished (may be purged or started again). */
export function isTerminal(status: string): boolean {
  return TERMINAL_STATUSES.includes(status);
}
