import { isMainThread } from 'node:worker_threads';
import { onFunctionsHost } from '../shared/app/runtime/hosting';
import type { LogLevel } from '../shared/telemetry/log-lines';
import { startTelemetry, type Telemetry } from '../shared/telemetry/telemetry';

type CoreLog = (level: string, category: string, message: string) => void;

const RPC_LEVELS: Record<LogLevel, string> = {
  debug: 'debug',
  info: 'information',
  warn: 'warning',
  error: 'error',
};

/**
 * The app's sinks, on the thread that serves the process (an embedded host's activity thread
 * forwards its occurrences there). Log lines go to the worker's log, as the host's own: the
 * Functions host sends them to Application Insights, the embedded host to its logger.
 */
export const telemetry: Telemetry | undefined = isMainThread
  ? startTelemetry({
      env: process.env,
      host: onFunctionsHost(process.env) ? 'functions' : 'embedded',
      writeLog: workerLog(),
    })
  : undefined;

function workerLog(): (level: LogLevel, line: string) => void {
  let core: { log?: CoreLog } | undefined;
  try {
    core = require('@azure/functions-core') as { log?: CoreLog };
  } catch {
    core = undefined;
  }
  const log = core?.log;
  if (log) return (level, line) => log(RPC_LEVELS[level], 'user', line);
  return (level, line) => console[level](line);
}
