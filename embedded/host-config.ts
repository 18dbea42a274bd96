/**
 * The parts of host.json the embedded host honours: the task hub name (with `%VAR%` taken from the
 * environment), the durable concurrency limits, the entity batch size, orchestration versioning,
 * the queue polling interval and `functionTimeout`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const positive = z.number().int().positive();

/** Which instances a worker runs, by their version against `defaultVersion` (the extension's names). */
export const VERSION_MATCH_STRATEGIES = ['None', 'Strict', 'CurrentOrOlder'] as const;
/** What happens to an instance a worker does not run: its work waits (Reject) or it fails (Fail). */
export const VERSION_FAILURE_STRATEGIES = ['Reject', 'Fail'] as const;
export type VersionMatchStrategy = (typeof VERSION_MATCH_STRATEGIES)[number];
export type VersionFailureStrategy = (typeof VERSION_FAILURE_STRATEGIES)[number];

const TIME_SPAN = /^(\d+\.)?\d{1,2}:\d{2}:\d{2}$/;

const hostJsonSchema = z.object({
  functionTimeout: z
    .string()
    .regex(TIME_SPAN, 'functionTimeout must look like "00:10:00" or "1.00:00:00"')
    .optional(),
  extensions: z
    .object({
      durableTask: z
        .object({
          hubName: z.string().optional(),
          storageProvider: z
            .object({
              maxQueuePollingInterval: z.string().regex(TIME_SPAN, 'must look like "00:00:05"').optional(),
            })
            .loose()
            .optional(),
          maxConcurrentActivityFunctions: positive.optional(),
          maxConcurrentOrchestratorFunctions: positive.optional(),
          maxConcurrentEntityFunctions: positive.optional(),
          maxEntityOperationBatchSize: positive.optional(),
          defaultVersion: z.string().optional(),
          versionMatchStrategy: z.enum(VERSION_MATCH_STRATEGIES).optional(),
          versionFailureStrategy: z.enum(VERSION_FAILURE_STRATEGIES).optional(),
        })
        .loose()
        .optional(),
      eventHubs: z.object({ maxEventBatchSize: positive.optional() }).loose().optional(),
    })
    .loose()
    .optional(),
});

/** The host settings that come from host.json. */
export interface HostSettings {
  taskHubName: string;
  maxConcurrentActivities: number;
  maxConcurrentOrchestrations: number;
  maxConcurrentEntities: number;
  maxEntityBatch: number;
  activityTimeoutMs: number;
  /** How long an idle queue goes unpolled, on a backend that polls (Azure Storage). */
  maxQueuePollingIntervalMs: number;
  /** The version new instances get ('' = none). */
  defaultVersion: string;
  versionMatchStrategy: VersionMatchStrategy;
  versionFailureStrategy: VersionFailureStrategy;
  /** Events per invocation of an Event Hubs trigger (`extensions.eventHubs.maxEventBatchSize`). */
  maxEventBatchSize: number;
}

/** Defaults of a Premium/Dedicated plan (the documented values), 30 min function timeout. */
export const DEFAULT_SETTINGS: HostSettings = {
  taskHubName: 'TestHubName',
  maxConcurrentActivities: 10,
  maxConcurrentOrchestrations: 10,
  maxConcurrentEntities: 10,
  maxEntityBatch: 5000,
  activityTimeoutMs: 30 * 60_000,
  // DTFx: AzureStorageOrchestrationServiceSettings.DefaultMaxQueuePollingInterval = TimeSpan.FromSeconds(30)
  maxQueuePollingIntervalMs: 30_000,
  defaultVersion: '',
  // The extension's defaults (DurableTaskOptions.cs: VersionMatchStrategy = CurrentOrOlder,
  // VersionFailureStrategy = Reject); DTFx's own VersioningSettings defaults to None.
  versionMatchStrategy: 'CurrentOrOlder',
  versionFailureStrategy: 'Reject',
  // The Event Hubs extension's default (v5: `maxEventBatchSize` 100).
  maxEventBatchSize: 100,
};

/** A host.json that is not valid; the message names the field. */
export class HostJsonError extends Error {}

/** Reads host.json settings from a file (missing file: defaults). */
export function readHostSettings(path: string, env: NodeJS.ProcessEnv = process.env): HostSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
  return parseHostSettings(JSON.parse(text), env);
}

/** Parses host.json content into settings. */
export function parseHostSettings(json: unknown, env: NodeJS.ProcessEnv = process.env): HostSettings {
  const parsed = hostJsonSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HostJsonError(`host.json: ${issue.path.join('.')}: ${issue.message}`);
  }
  const dt = parsed.data.extensions?.durableTask ?? {};
  const hub = (dt.hubName ?? DEFAULT_SETTINGS.taskHubName).replace(
    /%([^%]+)%/g,
    (_, name: string) => env[name] ?? '',
  );
  return {
    taskHubName: hub || DEFAULT_SETTINGS.taskHubName,
    maxConcurrentActivities: dt.maxConcurrentActivityFunctions ?? DEFAULT_SETTINGS.maxConcurrentActivities,
    maxConcurrentOrchestrations:
      dt.maxConcurrentOrchestratorFunctions ?? DEFAULT_SETTINGS.maxConcurrentOrchestrations,
    maxConcurrentEntities: dt.maxConcurrentEntityFunctions ?? DEFAULT_SETTINGS.maxConcurrentEntities,
    maxEntityBatch: dt.maxEntityOperationBatchSize ?? DEFAULT_SETTINGS.maxEntityBatch,
    activityTimeoutMs: parsed.data.functionTimeout
      ? timeSpanMs(parsed.data.functionTimeout)
      : DEFAULT_SETTINGS.activityTimeoutMs,
    maxQueuePollingIntervalMs: dt.storageProvider?.maxQueuePollingInterval
      ? timeSpanMs(dt.storageProvider.maxQueuePollingInterval)
      : DEFAULT_SETTINGS.maxQueuePollingIntervalMs,
    defaultVersion: dt.defaultVersion ?? DEFAULT_SETTINGS.defaultVersion,
    versionMatchStrategy: dt.versionMatchStrategy ?? DEFAULT_SETTINGS.versionMatchStrategy,
    versionFailureStrategy: dt.versionFailureStrategy ?? DEFAULT_SETTINGS.versionFailureStrategy,
    maxEventBatchSize:
      parsed.data.extensions?.eventHubs?.maxEventBatchSize ?? DEFAULT_SETTINGS.maxEventBatchSize,
  };
}

/** "d.hh:mm:ss" or "hh:mm:ss" → milliseconds. */
function timeSpanMs(span: string): number {
  const [days, rest] = span.includes('.') ? span.split('.') : ['0', span];
  const [h, m, s] = rest!.split(':').map(Number);
  return (((Number(days) * 24 + h!) * 60 + m!) * 60 + s!) * 1000;
}
