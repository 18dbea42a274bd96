/**
 * Event Hubs triggers over a local hub: no Event Hubs runs here, so each hub is a folder,
 * `<dataDir>/event-hubs/<hub>/partitions/<id>.jsonl`, one event per line
 * (`{"body": …, "enqueuedTimeUtc": "…"}`), appended by `publish` or by anyone. Each partition is
 * read in order, one invocation at a time, in batches of up to `maxEventBatchSize`, with the binding
 * data the Functions host gives a `cardinality: many` function (the bodies; `enqueuedTimeUtcArray`,
 * `sequenceNumberArray`, `offsetArray`, `partitionContext` in triggerMetadata: Azure/azure-functions-
 * templates `EventHubTrigger-JavaScript/index.js`, the extension's `EventHubTriggerBindingStrategy`).
 * As the Functions host does, the checkpoint (`checkpoints/<consumer group>/<id>.json`) is written after
 * every invocation, succeeded or not, unless the function's retry policy asks to run it again
 * (`fixedDelay` / `exponentialBackoff`, `maxRetryCount` -1 for ever), on the host's clock.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock';
import type { RegisteredFunction } from './core-module';
import type { HostContext } from './host-context';
import { type InputData, invokeFunction } from './invoke';

export interface EventHubTriggers {
  /** Appends events to a partition of a local hub and reads them. */
  publish(hub: string, partitionId: string, bodies: readonly unknown[]): void;
  /** Resolves when no partition has an invocation running or events left to read now. */
  idle(): Promise<void>;
  busy(): boolean;
  stop(): void;
}

/** The retry policy as `@azure/functions` registers it (durations as RPC durations). */
interface RetryOptions {
  retryStrategy?: string;
  maxRetryCount?: number;
  delayInterval?: RpcDuration;
  minimumInterval?: RpcDuration;
  maximumInterval?: RpcDuration;
}
interface RpcDuration {
  seconds?: number | string;
  nanos?: number;
}

const POLL_MS = 1000;

export function startEventHubTriggers({
  functions,
  dataDir,
  clock,
  log,
  functionLog,
  clientInputs,
  maxBatch,
  env = process.env,
}: {
  functions: Iterable<RegisteredFunction>;
  dataDir: string;
  clock: Clock;
  log: HostContext['log'];
  functionLog: HostContext['functionLog'];
  clientInputs: (fn: RegisteredFunction) => InputData[];
  maxBatch: number;
  env?: NodeJS.ProcessEnv;
}): EventHubTriggers {
  const readers: PartitionReaders[] = [];
  for (const fn of functions) {
    if (fn.trigger.type !== 'eventHubTrigger') continue;
    const hub = setting(String(fn.trigger.eventHubName ?? ''), env);
    const consumerGroup = setting(String(fn.trigger.consumerGroup ?? '$Default'), env) || '$Default';
    if (!hub) {
      log('warn', 'EventHubTriggerDisabled', {
        function: fn.name,
        reason: 'its eventHubName resolves to nothing',
      });
      continue;
    }
    const connection = String(fn.trigger.connection ?? '');
    const namespace = env[`${connection}__fullyQualifiedNamespace`] ?? 'embedded.servicebus.windows.net';
    readers.push(
      partitionReaders({
        fn,
        hub,
        consumerGroup,
        namespace,
        dataDir,
        clock,
        log,
        functionLog,
        clientInputs,
        maxBatch,
      }),
    );
  }
  let stopped = false;
  let cancel = (): void => undefined;
  const poll = (): void => {
    if (stopped) return;
    for (const reader of readers) reader.pump();
    cancel = clock.at(clock.now() + POLL_MS, poll);
  };
  if (readers.length > 0) poll();
  return {
    publish(hub, partitionId, bodies) {
      const folder = join(dataDir, 'event-hubs', hub, 'partitions');
      mkdirSync(folder, { recursive: true });
      const enqueuedTimeUtc = new Date(clock.now()).toISOString();
      appendFileSync(
        join(folder, `${checkedId(partitionId)}.jsonl`),
        bodies.map((body) => `${JSON.stringify({ body, enqueuedTimeUtc })}\n`).join(''),
      );
      for (const reader of readers) if (reader.hub === hub) reader.pump();
    },
    async idle() {
      // A batch waiting for its retry's time is idle: only the clock moves it on.
      while (readers.some((reader) => reader.active() > 0)) {
        await Promise.race(readers.map((reader) => reader.changed()));
      }
    },
    busy: () => readers.some((reader) => reader.active() > 0),
    stop() {
      stopped = true;
      cancel();
      for (const reader of readers) reader.stop();
    },
  };
}

interface PartitionReaders {
  hub: string;
  pump(): void;
  /** Partitions with an invocation running or about to (not those waiting for a retry's time). */
  active(): number;
  /** Resolves at the next change of `active()`. */
  changed(): Promise<void>;
  stop(): void;
}

function partitionReaders({
  fn,
  hub,
  consumerGroup,
  namespace,
  dataDir,
  clock,
  log,
  functionLog,
  clientInputs,
  maxBatch,
}: {
  fn: RegisteredFunction;
  hub: string;
  consumerGroup: string;
  namespace: string;
  dataDir: string;
  clock: Clock;
  log: HostContext['log'];
  functionLog: HostContext['functionLog'];
  clientInputs: (fn: RegisteredFunction) => InputData[];
  maxBatch: number;
}): PartitionReaders {
  const hubFolder = join(dataDir, 'event-hubs', hub);
  const checkpoints = join(hubFolder, 'checkpoints', consumerGroup);
  const retry = fn.retry as RetryOptions | undefined;
  const busy = new Map<string, Promise<void>>();
  const waiting = new Map<string, () => void>();
  let stopped = false;
  let notify = (): void => undefined;
  let changed = new Promise<void>((resolve) => {
    notify = resolve;
  });
  const signalChange = (): void => {
    const resolve = notify;
    changed = new Promise<void>((next) => {
      notify = next;
    });
    resolve();
  };

  const readCheckpoint = (id: string): { sequenceNumber: number; offset: number } => {
    try {
      return JSON.parse(readFileSync(join(checkpoints, `${id}.json`), 'utf8'));
    } catch {
      return { sequenceNumber: -1, offset: 0 };
    }
  };
  const writeCheckpoint = (id: string, checkpoint: { sequenceNumber: number; offset: number }): void => {
    mkdirSync(checkpoints, { recursive: true });
    const path = join(checkpoints, `${id}.json`);
    const temporary = `${path}.${randomUUID()}.tmp`;
    writeFileSync(temporary, JSON.stringify(checkpoint), { flush: true });
    renameSync(temporary, path);
  };

  /** The next batch after the checkpoint: complete lines only (a writer may be mid-line). */
  const nextBatch = (id: string) => {
    const checkpoint = readCheckpoint(id);
    const text = readFileSync(join(hubFolder, 'partitions', `${id}.jsonl`));
    const events: { body: unknown; enqueuedTimeUtc: string; sequenceNumber: number; offset: number }[] = [];
    let offset = checkpoint.offset;
    let sequenceNumber = checkpoint.sequenceNumber;
    while (events.length < maxBatch) {
      const end = text.indexOf(0x0a, offset);
      if (end < 0) break;
      const line = text.subarray(offset, end).toString('utf8');
      sequenceNumber += 1;
      const event = parseLine(line);
      events.push({
        body: event.body,
        enqueuedTimeUtc: event.enqueuedTimeUtc ?? new Date(clock.now()).toISOString(),
        sequenceNumber,
        offset,
      });
      offset = end + 1;
    }
    return { events, next: { sequenceNumber, offset } };
  };

  const invoke = async (id: string): Promise<void> => {
    const { events, next } = nextBatch(id);
    if (events.length === 0) return;
    const triggerMetadata = {
      partitionContext: json({
        ConsumerGroup: consumerGroup,
        EventHubName: hub,
        FullyQualifiedNamespace: namespace,
        PartitionId: id,
      }),
      enqueuedTimeUtcArray: json(events.map((event) => event.enqueuedTimeUtc)),
      sequenceNumberArray: json(events.map((event) => event.sequenceNumber)),
      offsetArray: json(events.map((event) => String(event.offset))),
      partitionKeyArray: json(events.map(() => null)),
      propertiesArray: json(events.map(() => ({}))),
    };
    const inputs: InputData[] = [
      {
        name: fn.triggerName,
        data: {
          collectionString: {
            string: events.map((event) =>
              typeof event.body === 'string' ? event.body : JSON.stringify(event.body),
            ),
          },
        },
      },
      ...clientInputs(fn),
    ];
    const maxRetryCount = retry?.maxRetryCount ?? 0;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await invokeFunction({
          fn,
          inputs,
          log: functionLog,
          triggerMetadata,
          retryContext: { retryCount: attempt, maxRetryCount },
        });
        break;
      } catch (error) {
        const retrying = !stopped && (maxRetryCount < 0 || attempt < maxRetryCount);
        log('warn', 'EventHubFunctionFailed', {
          function: fn.name,
          partition: id,
          attempt,
          retrying,
          error: String(error),
        });
        // Stopped mid-retry: no checkpoint, so the next start delivers the batch again.
        if (stopped) return;
        if (!retrying) break;
        await new Promise<void>((resolve) => {
          const cancel = clock.at(clock.now() + retryDelayMs(retry!, attempt + 1), () => {
            waiting.delete(id);
            signalChange();
            resolve();
          });
          waiting.set(id, () => {
            cancel();
            resolve();
          });
          signalChange();
        });
        if (stopped) return;
      }
    }
    writeCheckpoint(id, next);
  };

  const partitions = (): string[] => {
    try {
      return readdirSync(join(hubFolder, 'partitions'))
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => name.slice(0, -'.jsonl'.length));
    } catch {
      return [];
    }
  };

  const pumpPartition = (id: string): void => {
    if (stopped || busy.has(id)) return;
    const run = (async () => {
      for (;;) {
        const before = readCheckpoint(id).offset;
        await invoke(id);
        if (stopped || readCheckpoint(id).offset === before) return;
      }
    })()
      .catch((error: unknown) =>
        log('error', 'EventHubPartitionFailed', { partition: id, error: String(error) }),
      )
      .finally(() => {
        busy.delete(id);
        signalChange();
      });
    busy.set(id, run);
    signalChange();
  };

  return {
    hub,
    pump() {
      for (const id of partitions()) pumpPartition(id);
    },
    active: () => busy.size - waiting.size,
    changed: () => changed,
    stop() {
      stopped = true;
      for (const wake of waiting.values()) wake();
    },
  };
}

/** The Functions host's delays: fixed, or doubling from the minimum up to the maximum. */
function retryDelayMs(retry: RetryOptions, retryCount: number): number {
  if (retry.retryStrategy === 'fixedDelay') return durationMs(retry.delayInterval);
  const minimum = durationMs(retry.minimumInterval);
  const maximum = durationMs(retry.maximumInterval);
  return Math.min(maximum, minimum * 2 ** Math.min(retryCount - 1, 30));
}

function durationMs(duration: RpcDuration | undefined): number {
  if (!duration) return 0;
  return Number(duration.seconds ?? 0) * 1000 + Math.floor((duration.nanos ?? 0) / 1e6);
}

function json(value: unknown): { json: string } {
  return { json: JSON.stringify(value) };
}

/** `%NAME%` is an app setting, as the Functions host resolves binding expressions. */
function setting(value: string, env: NodeJS.ProcessEnv): string {
  const match = /^%([^%]+)%$/.exec(value);
  return match ? (env[match[1]!] ?? '') : value;
}

function parseLine(line: string): { body: unknown; enqueuedTimeUtc?: string } {
  try {
    const parsed = JSON.parse(line) as { body?: unknown; enqueuedTimeUtc?: unknown };
    if (typeof parsed === 'object' && parsed !== null && 'body' in parsed) {
      return {
        body: parsed.body,
        ...(typeof parsed.enqueuedTimeUtc === 'string' ? { enqueuedTimeUtc: parsed.enqueuedTimeUtc } : {}),
      };
    }
  } catch {
    // A line that is not an envelope is a body as it stands: the function decides what it is.
  }
  return { body: line };
}

function checkedId(partitionId: string): string {
  if (!/^[0-9]{1,4}$/.test(partitionId))
    throw new TypeError(`"${partitionId}" is not an Event Hubs partition id`);
  return partitionId;
}
