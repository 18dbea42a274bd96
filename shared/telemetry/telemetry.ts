/**
 * The app's two sinks, subscribed once per process: the log (a JSON object per line, handed to the
 * host's logger) and the metrics (Prometheus text on the embedded host; Application Insights on
 * the Functions host when `APPLICATIONINSIGHTS_CONNECTION_STRING` is set). `KUBESCRIBE_METRICS=off`
 * keeps no metrics.
 */
import { scrubSecrets } from '../errors';
import { subscribe } from './bus';
import { atLeast, type LogLevel, logLevelFrom, logLineOf } from './log-lines';
import { type MetricBackend, recordBranches, recordOccurrence } from './metrics';
import { azureMonitorMetrics } from './opentelemetry';
import { prometheusMetrics } from './prometheus';

type Env = Record<string, string | undefined>;

/** A branch of the configuration: its key and its words. */
export interface KnownBranch {
  key: string;
  repository: string;
  branch: string;
}

export interface Telemetry {
  /** The Prometheus exposition, where this host serves one. */
  scrape: (() => Promise<{ contentType: string; text: string }>) | undefined;
  /** Names the configuration's branch keys in the log and in `kubescribe_branch_info`. */
  knowBranches(branches: Iterable<KnownBranch>): void;
  /** Unsubscribes both sinks. */
  stop(): void;
}

/**
 * Subscribes the sinks. `writeLog` takes a level and one JSON line (the host's logger formats it);
 * `host` says which exporter the metrics go to.
 */
export function startTelemetry({
  env,
  host,
  writeLog,
}: {
  env: Env;
  host: 'embedded' | 'functions';
  writeLog: (level: LogLevel, line: string) => void;
}): Telemetry {
  const minLevel = logLevelFrom(env);
  const names = new Map<string, string>();
  const nameOf = (key: string) => names.get(key);
  const unsubscribeLog = subscribe((occurrence) => {
    const line = logLineOf(occurrence, nameOf);
    if (!line || !atLeast(line.level, minLevel)) return;
    writeLog(
      line.level,
      scrubSecrets(JSON.stringify({ event: line.event, message: line.message, ...line.fields })),
    );
  });
  const metrics = metricsFor(env, host, (message) =>
    writeLog('warn', JSON.stringify({ event: 'MetricsOff', message })),
  );
  const backend: MetricBackend | undefined = metrics?.backend;
  const unsubscribeMetrics = backend
    ? subscribe((occurrence) => recordOccurrence(backend, occurrence))
    : () => {};
  return {
    scrape: metrics?.scrape,
    knowBranches(branches) {
      const list = [...branches];
      for (const { key, repository, branch } of list) names.set(key, `${branch} of ${repository}`);
      if (backend) recordBranches(backend, list);
    },
    stop() {
      unsubscribeLog();
      unsubscribeMetrics();
    },
  };
}

function metricsFor(
  env: Env,
  host: 'embedded' | 'functions',
  onError: (message: string) => void,
): { backend: MetricBackend; scrape?: () => Promise<{ contentType: string; text: string }> } | undefined {
  if (env.KUBESCRIBE_METRICS?.trim().toLowerCase() === 'off') return undefined;
  if (host === 'embedded') {
    const prometheus = prometheusMetrics();
    return { backend: prometheus.backend, scrape: prometheus.scrape };
  }
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  return connectionString
    ? {
        backend: azureMonitorMetrics(
          connectionString,
          env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING,
          onError,
        ),
      }
    : undefined;
}
