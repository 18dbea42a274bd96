/**
 * The metrics to Application Insights (OpenTelemetry) on the Functions host, under the same names.
 * `@azure/monitor-opentelemetry` is loaded off the request path, after the app started: what is
 * recorded before it is ready waits in a bounded queue.
 */
import type { MetricBackend, MetricName } from './metrics';
import { METRICS } from './metrics';

type Move = (name: MetricName, labels: Record<string, string>, value: number) => void;
type Pending = { kind: keyof MetricBackend; name: MetricName; labels: Record<string, string>; value: number };

// what a slow start may hold: a burst of requests, not an outage's worth
const MAX_QUEUED = 10_000;

/** A backend that forwards to Azure Monitor once its SDK loaded with `connectionString`. */
export function azureMonitorMetrics(
  connectionString: string,
  authentication: string | undefined,
  onError: (message: string) => void,
): MetricBackend {
  let ready: MetricBackend | undefined;
  let queue: Pending[] | undefined = [];
  const later =
    (kind: keyof MetricBackend): Move =>
    (name, labels, value) => {
      if (ready) return ready[kind](name, labels, value);
      if (queue && queue.length < MAX_QUEUED) queue.push({ kind, name, labels, value });
    };
  setImmediate(() => {
    load(connectionString, authentication).then(
      (backend) => {
        ready = backend;
        for (const { kind, name, labels, value } of queue ?? []) backend[kind](name, labels, value);
        queue = undefined;
      },
      (error: unknown) => {
        queue = undefined;
        onError(
          `metrics to Application Insights are off: ${error instanceof Error ? error.message : String(error)}`,
        );
      },
    );
  });
  return { add: later('add'), set: later('set'), observe: later('observe') };
}

/**
 * `APPLICATIONINSIGHTS_AUTHENTICATION_STRING` (`Authorization=AAD;ClientId=…`), as the Functions
 * host reads it: the deployment turns local authentication off, so metrics are sent with the
 * app's managed identity.
 */
async function load(connectionString: string, authentication: string | undefined): Promise<MetricBackend> {
  const { useAzureMonitor } = await import('@azure/monitor-opentelemetry');
  const { metrics } = await import('@opentelemetry/api');
  const aad = authentication && /(^|;)\s*Authorization\s*=\s*AAD\s*(;|$)/i.test(authentication);
  const clientId = authentication && /(?:^|;)\s*ClientId\s*=\s*([^;]+)/i.exec(authentication)?.[1]?.trim();
  const credential = aad
    ? new (await import('@azure/identity')).ManagedIdentityCredential(clientId ? { clientId } : {})
    : undefined;
  useAzureMonitor({
    azureMonitorExporterOptions: { connectionString, ...(credential ? { credential } : {}) },
  });
  const meter = metrics.getMeter('kubescribe');
  const add = new Map<MetricName, (value: number, labels: Record<string, string>) => void>();
  const set = new Map<MetricName, (value: number, labels: Record<string, string>) => void>();
  const observe = new Map<MetricName, (value: number, labels: Record<string, string>) => void>();
  for (const metric of METRICS) {
    const options = { description: metric.help };
    if (metric.kind === 'counter') {
      const counter = meter.createCounter(metric.name, options);
      add.set(metric.name, (value, labels) => counter.add(value, labels));
    } else if (metric.kind === 'gauge') {
      const gauge = meter.createGauge(metric.name, options);
      set.set(metric.name, (value, labels) => gauge.record(value, labels));
    } else {
      const histogram = meter.createHistogram(metric.name, {
        ...options,
        unit: 's',
        advice: { explicitBucketBoundaries: [...(metric.buckets ?? [])] },
      });
      observe.set(metric.name, (value, labels) => histogram.record(value, labels));
    }
  }
  return {
    add: (name, labels, value) => add.get(name)?.(value, labels),
    set: (name, labels, value) => set.get(name)?.(value, labels),
    observe: (name, labels, value) => observe.get(name)?.(value, labels),
  };
}
