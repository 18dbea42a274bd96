/**
 * Structured logs: one JSON object per line, each with a named event from {@link LogEvent}, so
 * tests and operators can filter on `event` rather than on message text.
 */
import { scrubSecrets } from '../shared/errors';

/** The host's log events. */
export type LogEvent =
  | 'HostStarted'
  | 'HostStopping'
  | 'HostStopped'
  | 'AppLoaded'
  | 'OrchestrationCompleted'
  | 'OrchestrationFailed'
  | 'OrchestrationContinuedAsNew'
  | 'OrchestrationTerminated'
  | 'OrchestrationVersionRejected'
  | 'ActivityFailed'
  | 'ActivityTimedOut'
  | 'EntityBatchFailed'
  | 'HttpFunctionFailed'
  | 'TimerFunctionFailed'
  | 'FunctionLog'
  | 'WorkRecovered'
  | 'WorkerRestarted'
  | 'LargePayloadToBlob'
  | 'PayloadRefused';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One log line. */
export interface LogRecord {
  time: string;
  level: LogLevel;
  event: LogEvent;
  [field: string]: unknown;
}

export type Logger = (level: LogLevel, event: LogEvent, fields?: Record<string, unknown>) => void;

/** A logger writing JSON lines to `write` (stdout by default), at `minLevel` and above. */
export function jsonLogger(
  options: { minLevel?: LogLevel; write?: (line: string) => void; now?: () => number } = {},
): Logger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  const min = order.indexOf(options.minLevel ?? 'info');
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  return (level, event, fields = {}) => {
    if (order.indexOf(level) < min) return;
    const record: LogRecord = { time: new Date(now()).toISOString(), level, event, ...fields };
    write(scrubSecrets(JSON.stringify(record)));
  };
}

/** Maps a Functions log level ("information", "warning", …) to the host's. */
export function toLogLevel(level: string): LogLevel {
  if (level === 'error' || level === 'critical') return 'error';
  if (level === 'warning') return 'warn';
  if (level === 'trace' || level === 'debug') return 'debug';
  return 'info';
}
