/**
 * The embedded durable host: loads an unmodified durable-functions v3 app, keeps its durable state
 * in SQLite, runs orchestrations, entities, activities and timers, and serves the app's HTTP routes
 * and the durable client's local RPC API.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import { EMBEDDED_HOST_VARIABLE } from '../shared/host-marker';
import { type ActivityThreads, startActivityThreads } from './activity-threads';
import { type AppServerTls, startAppServer } from './app-server';
import type { StorageCounts } from './azure-storage-costs';
import { type ClientApi, clientApi } from './client-api';
import { type Clock, realClock } from './clock';
import { installCoreModule, type RegisteredFunction, registry } from './core-module';
import { lockDataFolder } from './data-lock';
import { createDispatcher } from './dispatcher';
import {
  type ClientSignalTuning,
  createEngine,
  type EngineSemantics,
  engineChoiceFromEnv,
  type LargePayloadCounts,
} from './engine-semantics';
import { type EventHubTriggers, startEventHubTriggers } from './event-hub-triggers';
import { DEFAULT_SETTINGS, type HostSettings, readHostSettings } from './host-config';
import type { HostContext } from './host-context';
import { functionLogRecord, type Logger, loggerFromEnv } from './log';
import { startRpcServer } from './rpc-server';
import type { SchedulerActions } from './scheduler-actions';
import { openStore } from './store';
import { startTimerTriggers } from './timer-triggers';

/** How to start a host. */
export interface HostOptions {
  /** Module to load the app from (it registers functions when required). */
  appEntry?: string;
  /** Alternative to appEntry: a function that loads/registers the app. */
  register?: () => void;
  /** Folder for the SQLite database. */
  dataDir: string;
  /** Interface and port of the app's HTTP server (default 127.0.0.1:7071; port 0 picks a free one). */
  host?: string;
  port?: number;
  clock?: Clock;
  /** host.json path, or settings to use instead (missing fields take the defaults). */
  hostJson?: string | Partial<HostSettings>;
  /** Largest accepted request body (default 10 MiB); larger ones get 413. */
  bodyLimitBytes?: number;
  /** HTTP requests the app server serves at once (default 64); more get 503 with Retry-After. */
  maxConcurrentRequests?: number;
  /**
   * HTTP requests one source (its bearer token, else its address) may have in flight (default 16);
   * more get 429 with Retry-After. Probes (`/api/healthz`, `/metrics`) count apart from both limits.
   */
  maxRequestsPerSource?: number;
  /** How long a client has to send a request's headers (default 10 s); then 408. */
  headersTimeoutMs?: number;
  /** How long a client has to send a whole request, body included (default 60 s); then 408. */
  requestTimeoutMs?: number;
  /**
   * Host names the app server answers to besides loopback names and the address it listens on
   * (a name a proxy forwards); other names get 421. Listening on every interface without this list
   * takes any name.
   */
  allowedHosts?: string[];
  /** A certificate and key (PEM) to serve the app over HTTPS instead of HTTP. */
  tls?: AppServerTls;
  logger?: Logger;
  /** 'full' adds an fsync per commit (survives power loss); 'normal' survives a killed process. */
  synchronous?: 'normal' | 'full';
  /** How long stop() waits for work in flight before abandoning it to the next start (default 10 s). */
  stopTimeoutMs?: number;
  /**
   * Worker threads that run activity functions, each loading the app from `appEntry` (default 0:
   * activities run on the main thread, on the host's clock). Durable state stays on the main thread.
   */
  activityThreads?: number;
  /**
   * Which engine's promises to keep (default `KUBESCRIBE_ENGINE_SEMANTICS`, else `exact`): `exact`
   * keeps the embedded host's own, `azure-storage` and `dts` only those Durable Functions keeps on
   * that backend (docs/embedded-host.md, "How true to the real engine").
   */
  semantics?: EngineSemantics;
  /** Seed of the faithful modes' random choices (default `KUBESCRIBE_ENGINE_SEED`, else 1). */
  seed?: number;
  /** How client signals are disordered (and held back by partition moves) in the faithful modes. */
  clientSignals?: Partial<ClientSignalTuning>;
  /**
   * `azure-storage` only: take work up when the queue's poller next looks (an idle queue once every
   * host.json `maxQueuePollingInterval`, at most 32 messages a fetch), not the moment it is queued.
   */
  queuePolling?: boolean;
}

/** A running host. */
export interface HostHandle {
  /** Origin of the app's HTTP server, e.g. http://127.0.0.1:7071 (routes are under /api). */
  url: string;
  /** Base URL of the durable client's local RPC API (loopback only); its path holds the API's secret. */
  rpcBaseUrl: string;
  client: ClientApi;
  settings: HostSettings;
  functions: RegisteredFunction[];
  /** What was found queued at start (work left by a crash or an earlier stop). */
  recovered: { messages: number; activities: number; timers: number };
  /** The engine semantics in force, its seed, and what the backend would spend on the work. */
  engine: {
    semantics: EngineSemantics;
    seed: number;
    largePayloads: LargePayloadCounts;
    /** What the Azure Storage backend would have spent (azure-storage; zero in the other modes). */
    storage: StorageCounts;
    /** The actions the Durable Task Scheduler would bill (dts; zero in the other modes). */
    actions: SchedulerActions;
  };
  /** The local Event Hubs the app's Event Hubs triggers read (docs/embedded-host.md). */
  eventHubs: Pick<EventHubTriggers, 'publish'>;
  /** Resolves once nothing is queued or running and no timer is due. */
  waitForIdle(): Promise<void>;
  /** Stops serving, lets work in flight finish (within the bound), and closes the store. */
  stop(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;
// Bounds what unauthenticated clients can hold: each request in flight can buffer up to the body limit.
const DEFAULT_MAX_CONCURRENT_REQUESTS = 64;
// A quarter of the host's slots: one token (one cluster, or one leaked token) never holds them all.
const DEFAULT_MAX_REQUESTS_PER_SOURCE = 16;
// Headers are a few hundred bytes; a 10 MiB body within a minute is 1.4 Mbit/s, slower than any
// apiserver or forwarder link that works at all.
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Starts a host. */
export async function startHost(options: HostOptions): Promise<HostHandle> {
  installCoreModule();
  process.env[EMBEDDED_HOST_VARIABLE] = '1';
  const log = options.logger ?? loggerFromEnv(process.env);
  const clock = options.clock ?? realClock();
  registry.onLog = (level, category, message) => {
    if (category === 'system' && level === 'debug') return;
    const record = functionLogRecord(level, category, message);
    log(record.level, record.event, record.fields);
  };
  if (options.register) options.register();
  else if (options.appEntry) require(options.appEntry);
  const functions = [...registry.functions.values()];
  // the count at start, the list (a line of 27 names) only when asked for: LOG_LEVEL=debug
  log('info', 'AppLoaded', { functions: functions.length });
  log('debug', 'AppFunctions', { functions: functions.map((f) => `${f.name} (${f.trigger.type})`) });

  const settings =
    typeof options.hostJson === 'string'
      ? readHostSettings(options.hostJson)
      : { ...DEFAULT_SETTINGS, ...(options.hostJson ?? {}) };
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const lock = lockDataFolder(options.dataDir);
  let store: ReturnType<typeof openStore>;
  try {
    store = openStore(join(options.dataDir, 'host.sqlite'), { synchronous: options.synchronous });
  } catch (error) {
    lock.release();
    throw error;
  }
  let stopping = false;
  let rpcBaseUrl = '';
  let appOrigin = '';
  const functionLog: HostContext['functionLog'] = (fn, level, category, message) => {
    if (category === 'system' && level === 'debug') return;
    const record = functionLogRecord(level, category, message, fn);
    log(record.level, record.event, record.fields);
  };
  const activityThreads = startThreads(options, functionLog);
  const fromEnv = engineChoiceFromEnv();
  const engine = createEngine(
    {
      semantics: options.semantics ?? fromEnv.semantics,
      seed: options.seed ?? fromEnv.seed,
      clientSignals: options.clientSignals,
      queuePolling: options.queuePolling,
    },
    log,
  );

  const base: Omit<HostContext, 'wake' | 'queueActivities' | 'armTimers'> = {
    store,
    clock,
    log,
    taskHubName: settings.taskHubName,
    versioning: {
      defaultVersion: settings.defaultVersion,
      versionMatchStrategy: settings.versionMatchStrategy,
      versionFailureStrategy: settings.versionFailureStrategy,
    },
    engine,
    functionLog,
    activityThreads,
    findFunction(name, triggerType) {
      const fn = registry.functions.get(name.toLowerCase());
      return fn && fn.trigger.type === triggerType ? fn : undefined;
    },
    clientInputs(fn) {
      return Object.entries(fn.bindings)
        .filter(([, b]) => b.type === 'durableClient' || b.type === 'orchestrationClient')
        .map(([name]) => ({
          name,
          data: { string: JSON.stringify(clientData(settings.taskHubName, rpcBaseUrl)) },
        }));
    },
    stopping: () => stopping,
  };
  const dispatcher = createDispatcher(base, {
    maxConcurrentOrchestrations: settings.maxConcurrentOrchestrations,
    maxConcurrentEntities: settings.maxConcurrentEntities,
    maxConcurrentActivities: settings.maxConcurrentActivities,
    maxEntityBatch: settings.maxEntityBatch,
    activityTimeoutMs: settings.activityTimeoutMs,
    maxQueuePollingIntervalMs: settings.maxQueuePollingIntervalMs,
  });
  const client = clientApi(dispatcher.ctx);
  const rpc = await startRpcServer(client, { bodyLimitBytes });
  rpcBaseUrl = rpc.baseUrl;
  const app = await startAppServer(dispatcher.ctx, () => registry.functions.values(), {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 7071,
    bodyLimitBytes,
    maxConcurrentRequests: options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
    maxRequestsPerSource: options.maxRequestsPerSource ?? DEFAULT_MAX_REQUESTS_PER_SOURCE,
    headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    allowedHosts: options.allowedHosts,
    tls: options.tls,
  }).catch(async (error: unknown) => {
    // The port is taken (or refused): nothing ran yet, so give back what was opened.
    await closeServer(rpc.server);
    await activityThreads?.stop();
    store.close();
    lock.release();
    throw error;
  });
  appOrigin = app.url;
  // getClient() rewrites management URLs to localhost:7071 unless WEBSITE_HOSTNAME names the host.
  if (!process.env.WEBSITE_HOSTNAME || process.env.WEBSITE_HOSTNAME.includes('0.0.0.0')) {
    process.env.WEBSITE_HOSTNAME = appOrigin.replace(/^https?:\/\//, '');
  }
  for (const hook of registry.hooks.get('appStart') ?? []) {
    await hook({ hookData: {}, appHookData: {}, functionAppDirectory: process.cwd() });
  }
  await activityThreads?.ready;
  const timers = startTimerTriggers({
    functions,
    clock,
    log,
    functionLog,
    clientInputs: base.clientInputs,
  });
  const eventHubs = startEventHubTriggers({
    functions,
    dataDir: options.dataDir,
    clock,
    log,
    functionLog,
    clientInputs: base.clientInputs,
    maxBatch: settings.maxEventBatchSize,
  });
  const recovered = dispatcher.recover();
  if (recovered.messages + recovered.activities + recovered.timers > 0)
    log('info', 'WorkRecovered', recovered);
  log('info', 'HostStarted', {
    url: appOrigin,
    // Never the base URL: its path is the RPC API's secret.
    rpcPort: rpc.port,
    dataDir: options.dataDir,
    // Only a configured task hub: the fallback name would read as a setting nobody made.
    ...(settings.taskHubName === DEFAULT_SETTINGS.taskHubName ? {} : { taskHub: settings.taskHubName }),
    defaultVersion: settings.defaultVersion,
    versionMatchStrategy: settings.versionMatchStrategy,
    semantics: engine.semantics,
    seed: engine.seed,
  });

  let stopped: Promise<void> | undefined;
  return {
    url: appOrigin,
    rpcBaseUrl,
    client,
    settings,
    functions,
    recovered,
    engine: {
      semantics: engine.semantics,
      seed: engine.seed,
      largePayloads: engine.largePayloads,
      storage: engine.storage,
      actions: engine.actions,
    },
    eventHubs: { publish: (hub, partitionId, bodies) => eventHubs.publish(hub, partitionId, bodies) },
    async waitForIdle() {
      // A trigger function's client calls start durable work: idle means neither is left.
      do {
        await timers.idle();
        await eventHubs.idle();
        await dispatcher.waitForIdle();
      } while (timers.busy() || eventHubs.busy());
    },
    stop() {
      stopped ??= (async () => {
        log('info', 'HostStopping', {});
        // The app's requests finish first: their client calls still need the RPC API.
        await closeServer(app.server);
        timers.stop();
        eventHubs.stop();
        await timers.idle();
        await eventHubs.idle();
        await closeServer(rpc.server);
        await dispatcher.drain(options.stopTimeoutMs ?? 10_000);
        stopping = true;
        dispatcher.disarmTimers();
        await activityThreads?.stop();
        for (const hook of registry.hooks.get('appTerminate') ?? [])
          await hook({ hookData: {}, appHookData: {} });
        store.close();
        lock.release();
        log('info', 'HostStopped', {});
      })();
      return stopped;
    },
  };
}

function startThreads(options: HostOptions, log: HostContext['functionLog']): ActivityThreads | null {
  const count = options.activityThreads ?? 0;
  if (count === 0) return null;
  if (!options.appEntry) throw new Error('activityThreads needs appEntry: a thread loads the app by itself');
  return startActivityThreads({ appEntry: options.appEntry, count, log });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 1000).unref();
  });
}

/** The durableClient binding data the extension gives functions, pointing at the local RPC API. */
function clientData(taskHubName: string, rpcBaseUrl: string) {
  const instance = `${rpcBaseUrl}instances/INSTANCEID`;
  const q = `taskHub=${encodeURIComponent(taskHubName)}&connection=Storage`;
  return {
    taskHubName,
    creationUrls: {
      createNewInstancePostUri: `${rpcBaseUrl}orchestrators/{functionName}[/{instanceId}]?${q}`,
      createAndWaitOnNewInstancePostUri: `${rpcBaseUrl}orchestrators/{functionName}[/{instanceId}]?timeout={timeoutInSeconds}&pollingInterval={intervalInSeconds}&${q}`,
    },
    managementUrls: {
      id: 'INSTANCEID',
      statusQueryGetUri: `${instance}?${q}`,
      sendEventPostUri: `${instance}/raiseEvent/{eventName}?${q}`,
      terminatePostUri: `${instance}/terminate?reason={text}&${q}`,
      rewindPostUri: `${instance}/rewind?reason={text}&${q}`,
      purgeHistoryDeleteUri: `${instance}?${q}`,
      restartPostUri: `${instance}/restart?${q}`,
      suspendPostUri: `${instance}/suspend?reason={text}&${q}`,
      resumePostUri: `${instance}/resume?reason={text}&${q}`,
    },
    baseUrl: rpcBaseUrl.replace(/\/$/, ''),
    requiredQueryStringParameters: q,
    rpcBaseUrl,
  };
}
