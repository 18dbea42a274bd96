/** What the runners share: the store, the clock, logs, and the hooks that wake the dispatcher. */
import type { ActivityThreads } from './activity-threads';
import type { Clock } from './clock';
import type { RegisteredFunction } from './core-module';
import type { Engine } from './engine-semantics';
import type { FunctionLog } from './invoke';
import type { Logger } from './log';
import type { Versioning } from './orchestration-versioning';
import type { Store, TimerRow } from './store';

/** The services every runner gets. */
export interface HostContext {
  store: Store;
  clock: Clock;
  log: Logger;
  functionLog: FunctionLog;
  taskHubName: string;
  /** Which orchestration versions this host stamps and runs (host.json). */
  versioning: Versioning;
  /** The promises of the engine this host is true to (see `HostOptions.semantics`). */
  engine: Engine;
  /** Looks a function up by name (case-insensitive) and trigger type. */
  findFunction(name: string, triggerType: string): RegisteredFunction | undefined;
  /** Input data of every durableClient binding of a function (the client's local RPC address). */
  clientInputs(fn: RegisteredFunction): { name: string; data: { string: string } }[];
  /** Where activities run when not on the main thread (see `HostOptions.activityThreads`). */
  activityThreads: ActivityThreads | null;
  /** Tells the dispatcher that these targets (instance ids or entity ids) have queued messages. */
  wake(targets: Iterable<string>): void;
  /** Tells the dispatcher about new activity work items. */
  queueActivities(ids: Iterable<number>): void;
  /** Arms durable timers. */
  armTimers(rows: Iterable<TimerRow>): void;
  /** True once the host is stopping: results of work still in flight are dropped (and redone later). */
  stopping(): boolean;
}
