/** The metrics as Prometheus text (prom-client), for `GET /metrics` on the embedded host. */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRICS, type MetricBackend, type MetricName } from './metrics';

export interface PrometheusMetrics {
  backend: MetricBackend;
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

/** A registry of its own with every metric of the table (not prom-client's global one). */
export function prometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  const counters = new Map<MetricName, Counter>();
  const gauges = new Map<MetricName, Gauge>();
  const histograms = new Map<MetricName, Histogram>();
  for (const metric of METRICS) {
    const common = {
      name: metric.name,
      help: metric.help,
      labelNames: [...metric.labels],
      registers: [registry],
    };
    if (metric.kind === 'counter') counters.set(metric.name, new Counter(common));
    else if (metric.kind === 'gauge') gauges.set(metric.name, new Gauge(common));
    else histograms.set(metric.name, new Histogram({ ...common, buckets: [...(metric.buckets ?? [])] }));
  }
  return {
    backend: {
      add: (name, labels, value) => counters.get(name)?.inc(labels, value),
      set: (name, labels, value) => gauges.get(name)?.set(labels, value),
      observe: (name, labels, value) => histograms.get(name)?.observe(labels, value),
    },
    async scrape() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}
