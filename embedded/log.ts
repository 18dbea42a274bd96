/**
 * Structured logs: one JSON object per line, each with a named event from {@link LogEvent}, so
 * tests and operators can filter on `event` rather than on message text.
 */
import { scrubSecrets } from '../shared/errors';
import { logLevelFrom } from '../shared/telemetry/log-lines';

/** The host's log events. */
export type LogEvent =
  | 'HostStarted'
  | 'HostStopping'
  | 'HostStopped'
  | 'AppLoaded'
  | 'AppFunctions'
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

export type { LogLevel } from '../shared/telemetry/log-lines';

import type { LogLevel } from '../shared/telemetry/log-lines';

/** An event the app names itself (a function's log line that is a JSON object with an `event`). */
export type AppLogEvent = string & { readonly appEvent?: never };

/** One log line. */
export interface LogRecord {
  time: string;
  level: LogLevel;
  event: LogEvent | AppLogEvent;
  [field: string]: unknown;
}

export type Logger = (
  level: LogLevel,
  event: LogEvent | AppLogEvent,
  fields?: Record<string, unknown>,
) => void;

const ORDER: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * A logger writing to `write` (stdout by default), at `minLevel` and above: JSON lines, or with
 * `human`, one readable line per record (`12:00:01.250 WARN  Event  message  key=value`).
 */
export function jsonLogger(
  options: { minLevel?: LogLevel; write?: (line: string) => void; now?: () => number; human?: boolean } = {},
): Logger {
  const min = ORDER.indexOf(options.minLevel ?? 'info');
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const format = options.human ? humanLine : (record: LogRecord) => JSON.stringify(record);
  return (level, event, fields = {}) => {
    if (ORDER.indexOf(level) < min) return;
    const record: LogRecord = { time: new Date(now()).toISOString(), level, event, ...fields };
    write(escapeControls(scrubSecrets(format(record))));
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being escaped.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Every control character of a line escaped (`\n`, `\u001b`, …): fields carry what clients sent
 * (a decoded path, a target name, a message), and a newline or an ANSI escape in one would forge
 * a line or repaint the terminal. JSON.stringify escapes C0 only; C1 (`\u009b` is CSI on some
 * terminals) and the line separators are escaped here too, which JSON readers read back alike.
 */
function escapeControls(line: string): string {
  return line.replace(
    CONTROL,
    (char) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The host's logger as the environment asks: `LOG_LEVEL` (debug, info, warn, error; default info),
 * readable lines when `stream` is a terminal, JSON lines otherwise (for a collector).
 */
export function loggerFromEnv(
  env: Record<string, string | undefined>,
  stream: { isTTY?: boolean; write(text: string): unknown } = process.stdout,
): Logger {
  return jsonLogger({
    minLevel: logLevelFrom(env),
    human: stream.isTTY === true,
    write: (line) => stream.write(`${line}\n`),
  });
}

/** A record as a person reads it on a terminal: time, level, event, its message, then its other fields. */
export function humanLine(record: LogRecord): string {
  const { time, level, event, message, ...fields } = record;
  const rest = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(
      ([key, value]) =>
        `${key}=${typeof value === 'string' && !/[\s"=]/.test(value) ? value : JSON.stringify(value)}`,
    );
  return [
    `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${event}`,
    ...(typeof message === 'string' ? [message] : []),
    ...(rest.length > 0 ? [rest.join(' ')] : []),
  ].join('  ');
}

/**
 * A function's log line as a record: the app's own events (a JSON object with an `event`, logged in
 * the user category) keep their name and fields; any other line is a `FunctionLog` with its text.
 */
export function functionLogRecord(
  level: string,
  category: string,
  message: string,
  fn?: string,
): { level: LogLevel; event: LogEvent | AppLogEvent; fields: Record<string, unknown> } {
  if (category === 'user' && message.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(message);
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        typeof (parsed as { event?: unknown }).event === 'string'
      ) {
        const { event, ...fields } = parsed as { event: string };
        return { level: toLogLevel(level), event, fields };
      }
    } catch {
      // not one of the app's events: logged as the text it is
    }
  }
  return {
    level: toLogLevel(level),
    event: 'FunctionLog',
    fields: { ...(fn === undefined ? {} : { function: fn }), category, message },
  };
}

/** Maps a Functions log level ("information", "warning", …) to the host's. */
export function toLogLevel(level: string): LogLevel {
  if (level === 'error' || level === 'critical') return 'error';
  if (level === 'warning') return 'warn';
  if (level === 'trace' || level === 'debug') return 'debug';
  return 'info';
}
