/**
 * How true to the real engine the host is. `exact` (the default) keeps every promise the embedded
 * host can keep: client signals in order and once, no size limits, cancelled timers deleted. The
 * faithful modes (`azure-storage`, `dts`) keep only the promises Durable Functions keeps on Azure
 * with that backend, so that tests meet the weaker engine here first (docs/embedded-host.md, "How
 * true to the real engine"). Every random choice comes from one seeded generator: a run is
 * reproducible from its seed.
 */
import { z } from 'zod';
import {
  countActivity,
  countEntityBatch,
  countEpisode,
  countMessageAdded,
  countStarted,
  countTableRead,
  emptyStorageCounts,
  type StorageCounts,
} from './azure-storage-costs';
import { InstanceExistsError } from './instances';
import type { Logger } from './log';
import { emptySchedulerActions, type SchedulerAction, type SchedulerActions } from './scheduler-actions';
import type { StoredMessage } from './store';

export const ENGINE_SEMANTICS = ['exact', 'azure-storage', 'dts'] as const;
export type EngineSemantics = (typeof ENGINE_SEMANTICS)[number];

/** The seed when neither the option nor `KUBESCRIBE_ENGINE_SEED` gives one. */
export const DEFAULT_ENGINE_SEED = 1;

/** How client signals are disordered in the faithful modes. */
export interface ClientSignalTuning {
  /** A client signal can be taken up to this many places later than it arrived (0: in order). */
  reorderWindow: number;
  /** The chance that a client signal is delivered twice (at least once, as on Azure). */
  duplicateProbability: number;
  /**
   * The chance that a client signal is in flight when its partition moves to another worker: it
   * comes back after the control queue's visibility timeout (minutes), behind every later signal
   * (0: never, the default, so that suites on a real clock keep their pace).
   */
  partitionMoveProbability: number;
}

export const DEFAULT_CLIENT_SIGNAL_TUNING: ClientSignalTuning = {
  reorderWindow: 4,
  duplicateProbability: 0.1,
  partitionMoveProbability: 0,
};

/**
 * DTFx's Azure Storage settings the delivery model follows (Azure/durabletask,
 * src/DurableTask.AzureStorage/AzureStorageOrchestrationServiceSettings.cs):
 * `ControlQueueVisibilityTimeout { get; set; } = TimeSpan.FromMinutes(5)` and
 * `ControlQueueBatchSize { get; set; } = 32`.
 */
export const CONTROL_QUEUE_VISIBILITY_TIMEOUT_MS = 5 * 60_000;
export const CONTROL_QUEUE_BATCH_SIZE = 32;

/** What a host option or the environment chose. */
export interface EngineChoice {
  semantics?: EngineSemantics;
  seed?: number;
  clientSignals?: Partial<ClientSignalTuning>;
  /**
   * Azure Storage only: queues are polled, not pushed (the host's maxQueuePollingInterval applies).
   * Off by default, so that suites written for instant pickup keep their pace.
   */
  queuePolling?: boolean;
}

/** An environment value that names no engine semantics (or no integer seed). */
export class EngineSemanticsError extends Error {}

const semanticsSchema = z.enum(ENGINE_SEMANTICS);
const seedSchema = z
  .string()
  .regex(/^-?\d+$/)
  .transform(Number);

/** Reads `KUBESCRIBE_ENGINE_SEMANTICS` and `KUBESCRIBE_ENGINE_SEED`; an invalid value is refused by name. */
export function engineChoiceFromEnv(env: NodeJS.ProcessEnv = process.env): EngineChoice {
  const choice: EngineChoice = {};
  const semantics = env.KUBESCRIBE_ENGINE_SEMANTICS;
  if (semantics) {
    const parsed = semanticsSchema.safeParse(semantics);
    if (!parsed.success) {
      throw new EngineSemanticsError(
        `KUBESCRIBE_ENGINE_SEMANTICS must be one of ${ENGINE_SEMANTICS.join(', ')}, got "${semantics}".`,
      );
    }
    choice.semantics = parsed.data;
  }
  const seed = env.KUBESCRIBE_ENGINE_SEED;
  if (seed) {
    const parsed = seedSchema.safeParse(seed);
    if (!parsed.success)
      throw new EngineSemanticsError(`KUBESCRIBE_ENGINE_SEED must be an integer, got "${seed}".`);
    choice.seed = parsed.data;
  }
  return choice;
}

/** Which store a payload is written to, which decides the backend's limit. */
export type PayloadKind = 'message' | 'property';

/** The Durable Task Scheduler refuses a payload over its limit. */
export class PayloadTooLargeError extends Error {}

/** Starting an id that a running instance holds, answered as Azure Storage answers it (409). */
class AzureStorageInstanceExistsError extends InstanceExistsError {
  constructor(instanceId: string, status: string) {
    super(instanceId, status);
    this.message = `An Orchestration instance with the status ${status} already exists.`;
  }
}

const KIB = 1024;
/** The extension's custom status limit, in KB of UTF-16 (MessagePayloadDataConverter.Serialize). */
const CUSTOM_STATUS_LIMIT_KB = 16;
/** Azure Storage: queue messages above this go to a blob (compressed), measured in UTF-8. */
const AZURE_QUEUE_INLINE_BYTES = 45 * KIB;
/** Azure Storage: table properties above this go to a blob, measured in UTF-16. */
const AZURE_TABLE_INLINE_BYTES = 60 * KIB;
/** Durable Task Scheduler: the largest message or state it accepts. */
const DTS_LIMIT_BYTES = 1024 * KIB;

const GUID = '00000000-0000-0000-0000-000000000000';

/**
 * A client signal as the extension sends it: a `RequestMessage` (EntityScheduler/RequestMessage.cs:
 * `op`, `signal`, `input` as a JSON string, `id` a Guid) raised as an event on the entity's
 * scheduler (DurableClient.SignalEntityInternalAsync: `RaiseEventAsync(instance, eventName, jrequest)`).
 * The Durable Task Scheduler keeps the event's input, that request's JSON; Azure Storage queues
 * DTFx's `MessageData` (ActivityId, TaskMessage with the EventRaisedEvent, SequenceNumber, ...,
 * serialized with type names), where that JSON is a string again: the operation's input is JSON
 * inside a string inside a string, and every quote in it takes four bytes.
 */
export function signalAsStored(
  semantics: EngineSemantics,
  entityId: string,
  operation: string,
  input: string | null,
): string {
  const request = JSON.stringify({
    op: operation,
    signal: true,
    ...(input === null ? {} : { input }),
    id: GUID,
  });
  if (semantics !== 'azure-storage') return request;
  return JSON.stringify({
    $type: 'DurableTask.AzureStorage.MessageData, DurableTask.AzureStorage',
    ActivityId: GUID,
    TaskMessage: {
      $type: 'DurableTask.Core.TaskMessage, DurableTask.Core',
      Event: {
        $type: 'DurableTask.Core.History.EventRaisedEvent, DurableTask.Core',
        EventType: 10,
        Name: 'op',
        Input: request,
        EventId: -1,
        IsPlayed: false,
        Timestamp: '0001-01-01T00:00:00Z',
      },
      SequenceNumber: 0,
      OrchestrationInstance: { InstanceId: entityId, ExecutionId: GUID.replaceAll('-', '') },
    },
    SequenceNumber: 0,
    SerializableTraceContext: null,
  });
}

/**
 * An entity's state as the extension stores it: its `SchedulerState` (EntityScheduler/SchedulerState.cs:
 * `exists`, `state` as a JSON string, `queue` of the RequestMessages still waiting (past the batch
 * limit), `sorter`), serialized as the input the entity's scheduler continues as new with. The
 * state is escaped into a string: every quote in it takes two bytes.
 */
export function entityStateAsStored(
  exists: boolean,
  state: string | null | undefined,
  waiting: readonly { name: string; input: string | null }[],
): string {
  return JSON.stringify({
    ...(exists ? { exists: true } : {}),
    ...(state === null || state === undefined ? {} : { state }),
    ...(waiting.length === 0
      ? {}
      : {
          queue: waiting.map((op) => ({
            op: op.name,
            signal: true,
            ...(op.input === null ? {} : { input: op.input }),
            id: GUID,
          })),
        }),
    sorter: {},
  });
}

/** Payloads the Azure Storage backend would have moved to blobs, by where they are written. */
export interface LargePayloadCounts {
  messages: number;
  properties: number;
}

/** The engine's promises, as the host's runners consult them. */
export interface Engine {
  semantics: EngineSemantics;
  seed: number;
  /** Payloads moved to blobs (azure-storage); always zero in the other modes. */
  largePayloads: LargePayloadCounts;
  /**
   * The copies of a client signal to queue, each as the delay (ms) before it can be taken: `[0]`
   * once now, `[0, 0]` twice, `[300000]` first taken after the visibility timeout.
   */
  clientSignalDeliveries(): number[];
  /** Keeps a queued message from being taken before `visibleAtMs` (a redelivery after the visibility timeout). */
  hideUntil(messageId: number, visibleAtMs: number): void;
  /** How many queued messages are hidden now. */
  hiddenMessages(): number;
  /** The messages of an entity's queue to run at `nowMs`, in the order to run them; the rest wait. */
  orderEntityBatch(queued: StoredMessage[], nowMs: number): StoredMessage[];
  /**
   * Whether queues are polled (Azure Storage with `queuePolling`): an idle queue is looked at once
   * every maxQueuePollingInterval, a fetch takes at most 32 messages. Otherwise work is pushed.
   */
  pollsQueues: boolean;
  /** A number in [0, 1) from the run's seeded generator (the pollers' phases). */
  random(): number;
  /** The storage requests and bytes the Azure Storage backend would spend (azure-storage); zero otherwise. */
  storage: StorageCounts;
  /** Counts a message a client adds to a control queue (a signal, an event). */
  countClientMessage(json: string): void;
  /** Counts a client's start of an orchestration with this input. */
  countClientStart(input: string): void;
  /** Counts an entity batch's work item, as `batch` describes it (made only when counted). */
  countEntityBatch(batch: () => Parameters<typeof countEntityBatch>[1]): void;
  /** Counts an activity's work item. */
  countActivity(input: string, result: string): void;
  /** Counts an orchestration episode's work item, as `episode` describes it (made only when counted). */
  countEpisode(episode: () => Parameters<typeof countEpisode>[1]): void;
  /** Counts a client's read of an instance's row, with its variable-size properties (made only when counted). */
  countClientRead(properties: () => string[]): void;
  /** The actions the Durable Task Scheduler would bill (dts); zero otherwise. */
  actions: SchedulerActions;
  /** Counts `count` actions of a kind the app was dispatched (dts). */
  countDispatched(action: SchedulerAction, count?: number): void;
  /** Why the extension refuses this custom status, if it does. */
  customStatusError(customStatus: unknown): string | undefined;
  /** Checks a payload against the backend: refuses it (dts, throws) or counts it (azure-storage). */
  checkPayload(kind: PayloadKind, what: string, json: string | null | undefined): void;
  /** The error a startNew on a running instance's id gets. */
  instanceExists(error: InstanceExistsError): Error;
  /** Whether a cancelled durable timer is deleted (exact) or still fires later (the real engine). */
  deletesCancelledTimers: boolean;
  /** The message of an activity that ran past functionTimeout. */
  timeoutMessage(functionName: string, timeoutMs: number): string;
  /** Called when an invocation times out: on Azure the host restarts the worker it ran on. */
  onFunctionTimeout(): void;
  /** Changes every time the (modelled) worker restarts: work begun before is abandoned and redone. */
  workerGeneration(): number;
}

/** Builds the engine for a mode. */
export function createEngine(choice: EngineChoice, log: Logger): Engine {
  const semantics = choice.semantics ?? 'exact';
  const seed = choice.seed ?? DEFAULT_ENGINE_SEED;
  const tuning = { ...DEFAULT_CLIENT_SIGNAL_TUNING, ...choice.clientSignals };
  const random = seededRandom(seed);
  const largePayloads: LargePayloadCounts = { messages: 0, properties: 0 };
  const storage = emptyStorageCounts();
  const counting = semantics === 'azure-storage';
  const actions = emptySchedulerActions();
  const billing = semantics === 'dts';
  const faithful = semantics !== 'exact';
  /** Client signals already held back once: each waits at most one batch, so none starves. */
  const heldBack = new Set<number>();
  /** Messages back in the queue after a partition move, by id: when they become visible again. */
  const hidden = new Map<number, number>();
  let generation = 0;

  return {
    semantics,
    seed,
    largePayloads,
    storage,
    countClientMessage(json) {
      if (counting) countMessageAdded(storage, json);
    },
    countClientStart(input) {
      if (counting) countStarted(storage, input);
    },
    countEntityBatch(batch) {
      if (counting) countEntityBatch(storage, batch());
    },
    countActivity(input, result) {
      if (counting) countActivity(storage, input, result);
    },
    countEpisode(episode) {
      if (counting) countEpisode(storage, episode());
    },
    countClientRead(properties) {
      if (counting) countTableRead(storage, properties());
    },
    actions,
    countDispatched(action, count = 1) {
      if (billing) actions[action] += count;
    },
    clientSignalDeliveries() {
      if (!faithful) return [0];
      const copies = random() < tuning.duplicateProbability ? [0, 0] : [0];
      if (random() >= tuning.partitionMoveProbability) return copies;
      // The message was dequeued by the worker that lost the partition, so nobody can see it until
      // its visibility timeout ends (ControlQueue.GetMessagesAsync dequeues with
      // ControlQueueVisibilityTimeout). Either that worker never ran its batch (every copy comes
      // late), or it committed the batch but lost its lease before deleting the message (taken
      // now, and again when it reappears).
      const late = CONTROL_QUEUE_VISIBILITY_TIMEOUT_MS;
      const deliveries = random() < 0.5 ? copies.map(() => late) : [0, ...copies.map(() => late)];
      log('debug', 'SignalCaughtInPartitionMove', { deliveries });
      return deliveries;
    },
    hideUntil(messageId, visibleAtMs) {
      hidden.set(messageId, visibleAtMs);
    },
    hiddenMessages: () => hidden.size,
    orderEntityBatch(peeked, nowMs) {
      let queued = peeked;
      if (hidden.size > 0) {
        queued = peeked.filter((m) => {
          const visibleAt = hidden.get(m.id);
          if (visibleAt === undefined) return true;
          if (visibleAt > nowMs) return false;
          hidden.delete(m.id);
          return true;
        });
      }
      if (!faithful || tuning.reorderWindow === 0 || queued.length === 0) return queued;
      // Client signals bypass the entity's message sorter: each is taken up to `reorderWindow`
      // places late. Messages from orchestrations keep their order.
      const keyed = queued.map((m, index) => {
        const fromClient = m.message.kind === 'op' && m.message.fromClient === true;
        return { m, fromClient, key: fromClient ? index + random() * (tuning.reorderWindow + 1) : index };
      });
      keyed.sort((a, b) => a.key - b.key);
      const late = (k: (typeof keyed)[number]) =>
        k.fromClient && k.key >= queued.length && !heldBack.has(k.m.id);
      const now = keyed.filter((k) => !late(k));
      if (now.length === 0) return keyed.map((k) => k.m);
      for (const k of keyed) {
        if (late(k)) heldBack.add(k.m.id);
        else heldBack.delete(k.m.id);
      }
      return now.map((k) => k.m);
    },
    customStatusError(customStatus) {
      if (!faithful || customStatus === undefined) return undefined;
      const kb = Math.floor((JSON.stringify(customStatus ?? null).length * 2) / KIB);
      if (kb <= CUSTOM_STATUS_LIMIT_KB) return undefined;
      return (
        `The UTF-16 size of the JSON-serialized payload must not exceed ${CUSTOM_STATUS_LIMIT_KB} KB. ` +
        `The current payload size is ${kb} KB.`
      );
    },
    checkPayload(kind, what, json) {
      if (!faithful || json === null || json === undefined) return;
      if (semantics === 'dts') {
        const bytes = Buffer.byteLength(json, 'utf8');
        if (bytes <= DTS_LIMIT_BYTES) return;
        log('warn', 'PayloadRefused', { what, bytes, limit: DTS_LIMIT_BYTES });
        throw new PayloadTooLargeError(
          `The Durable Task Scheduler refuses ${what}: ${bytes} bytes is over its ${DTS_LIMIT_BYTES}-byte limit.`,
        );
      }
      const bytes = kind === 'message' ? Buffer.byteLength(json, 'utf8') : json.length * 2;
      const limit = kind === 'message' ? AZURE_QUEUE_INLINE_BYTES : AZURE_TABLE_INLINE_BYTES;
      if (bytes <= limit) return;
      if (kind === 'message') largePayloads.messages++;
      else largePayloads.properties++;
      log('info', 'LargePayloadToBlob', { what, kind, bytes, limit, total: { ...largePayloads } });
    },
    instanceExists(error) {
      if (semantics === 'azure-storage')
        return new AzureStorageInstanceExistsError(error.instanceId, error.status);
      // Not an InstanceExistsError, so the RPC API answers 500 with the message.
      if (semantics === 'dts')
        return new Error(`An Orchestration instance with the status ${error.status} already exists.`);
      return error;
    },
    pollsQueues: semantics === 'azure-storage' && choice.queuePolling === true,
    random,
    deletesCancelledTimers: !faithful,
    timeoutMessage(functionName, timeoutMs) {
      if (!faithful) return `Timeout value of ${timeoutMs} ms was exceeded by function: ${functionName}`;
      return `Timeout value of ${timeSpan(timeoutMs)} was exceeded by function: Functions.${functionName}`;
    },
    onFunctionTimeout() {
      if (!faithful) return;
      generation++;
      log('warn', 'WorkerRestarted', { reason: 'function timeout', generation });
    },
    workerGeneration: () => generation,
  };
}

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Milliseconds as the Functions host prints a TimeSpan: hh:mm:ss. */
function timeSpan(ms: number): string {
  const s = Math.floor(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}
