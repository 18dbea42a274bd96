// The metric names the docs, the KQL examples and the Grafana dashboard use are the ones the app
// keeps, and every metric the app keeps is documented.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { METRICS } from '../../shared/telemetry/metrics';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const known = new Set<string>(METRICS.map((metric) => metric.name));

function namesIn(text: string): string[] {
  return [...new Set([...text.matchAll(/\bkubescribe_[a-z0-9_]+/g)].map((match) => match[0]))];
}

/** A histogram's series (`_bucket`, `_count`, `_sum`) are its own name. */
function metricOf(series: string): string {
  const base = series.replace(/_(bucket|count|sum)$/, '');
  return known.has(base) ? base : series;
}

/** Where metric names are written: the metrics page, every KQL query of the docs, the dashboard. */
const sources: [string, string][] = [
  ['docs/observability.md', read('docs/observability.md')],
  ['deploy/monitoring/grafana-dashboard.json', read('deploy/monitoring/grafana-dashboard.json')],
  ...[
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ].flatMap((path) =>
    [...read(path).matchAll(/^\s*```kusto\n([\s\S]*?)^\s*```/gm)].map((match, index): [string, string] => [
      `${path} KQL query ${index + 1}`,
      match[1] ?? '',
    ]),
  ),
];

it('finds the KQL queries of the docs', () => {
  expect(sources.filter(([where]) => where.includes('KQL')).length).toBeGreaterThanOrEqual(4);
});

it.each(sources)('%s names only metrics the app keeps', (_where, text) => {
  expect(
    namesIn(text)
      .map(metricOf)
      .filter((name) => !known.has(name)),
  ).toEqual([]);
});

it('documents every metric with its labels', () => {
  const page = read('docs/observability.md');
  for (const metric of METRICS) {
    const row = page.split('\n').find((line) => line.startsWith(`| \`${metric.name}\``));
    expect(row).toBeDefined();
    for (const label of metric.labels) expect(row).toContain(`\`${label}\``);
  }
});

it('has a Grafana dashboard whose every panel queries a metric', () => {
  const dashboard = JSON.parse(read('deploy/monitoring/grafana-dashboard.json')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  expect(dashboard.panels.length).toBeGreaterThan(5);
  for (const panel of dashboard.panels) {
    expect(panel.targets.length).toBeGreaterThan(0);
    for (const target of panel.targets) expect(namesIn(target.expr).length).toBeGreaterThan(0);
  }
});

it('has a ServiceMonitor that scrapes /metrics', () => {
  const monitor = parse(read('deploy/monitoring/servicemonitor.yaml')) as {
    apiVersion: string;
    kind: string;
    spec: { endpoints: { path: string; port: string }[] };
  };
  expect(monitor).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor' });
  expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ path: '/metrics' })]);
});
