/**
 * Event Hubs feed benchmark (`npm run bench -- eventhub`): the compiled app on the embedded host as
 * `npm start` runs it, one repository, two targets. The same audit events (EVENTHUB_RECORDS, default
 * 8,000 ConfigMap updates) go first to the audit webhook route (EventLists of 400, 4 concurrent
 * clients; each durable when answered), then through the Event Hubs trigger (AKS diagnostic bodies
 * of 50 records, spread over 4 partitions of the local hub, read in batches of 100 bodies; each
 * batch durable when its partition's checkpoint moves). Figure: records per second through the
 * trigger, as a ratio to the audit route's events per second in the same run.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startCompiledApp } from './compiled-app';
import { report } from './figures';
import { auditEvent } from './ingest-load';

const run = promisify(execFile);
const RECORDS = Number(process.env.EVENTHUB_RECORDS ?? 8000);
const LIST_SIZE = 400;
const CLIENTS = 4;
const RECORDS_PER_BODY = 50;
const PARTITIONS = 4;
const HUB = 'aks-audit';

/** An audit event as AKS streams it: a kube-audit-admin record with the event as a JSON string. */
function diagnosticRecord(event: object) {
  return {
    time: '2026-11-29T00:00:00.0100000Z',
    resourceId: '/SUBSCRIPTIONS/0/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/AKS',
    category: 'kube-audit-admin',
    operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
    properties: { log: JSON.stringify(event), stream: 'stdout', pod: 'kube-apiserver-0' },
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-eventhub-'));
  // A repository each: the two feeds do not share a branch's room.
  const remotes = { webhook: join(dataDir, 'webhook.git'), hub: join(dataDir, 'hub.git') };
  for (const remote of Object.values(remotes))
    await run('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  process.env.KUBESCRIBE_EVENTHUB_NAME = HUB;
  const host = await startCompiledApp({
    dataDir,
    config: {
      repositories: [
        { name: 'webhook', url: remotes.webhook },
        { name: 'hub', url: remotes.hub },
      ],
      targets: [
        { name: 'webhook', repository: 'webhook', branch: 'main', path: '.' },
        { name: 'hub', repository: 'hub', branch: 'main', path: '.' },
      ],
      sources: [{ name: 'aks', kind: 'eventHub', eventHub: { hub: HUB }, targets: ['hub'] }],
      limits: { pushCooldown: '0s' },
      server: { auth: 'disabled' },
    },
  });
  const partitionFile = (partition: number) =>
    join(dataDir, 'event-hubs', HUB, 'partitions', `${partition}.jsonl`);
  const checkpointFile = (partition: number) =>
    join(dataDir, 'event-hubs', HUB, 'checkpoints', '$Default', `${partition}.json`);
  const caughtUp = (partition: number) =>
    !existsSync(partitionFile(partition)) ||
    (existsSync(checkpointFile(partition)) &&
      JSON.parse(readFileSync(checkpointFile(partition), 'utf8')).offset ===
        statSync(partitionFile(partition)).size);
  const drained = async () => {
    while (![...Array(PARTITIONS).keys()].every(caughtUp)) await sleep(20);
  };
  const post = async (body: unknown) => {
    const response = await fetch(`${host.url}/api/v1/targets/webhook/audit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`audit: ${response.status} ${await response.text()}`);
  };
  try {
    // Warm-up: the first request builds the runtime and starts the driver; the first batch the same.
    await post({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [auditEvent(0, 'warmup')] });
    host.eventHubs.publish(HUB, '0', [{ records: [diagnosticRecord(auditEvent(0, 'warmup'))] }]);
    await drained();

    const events = Array.from({ length: RECORDS }, (_, i) => auditEvent(i + 1, `user-${i % 7}@contoso.com`));
    const lists: unknown[] = [];
    for (let from = 0; from < events.length; from += LIST_SIZE) {
      lists.push({
        kind: 'EventList',
        apiVersion: 'audit.k8s.io/v1',
        items: events.slice(from, from + LIST_SIZE),
      });
    }
    const routeStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < lists.length) await post(lists[next++]);
      }),
    );
    const routeSeconds = (performance.now() - routeStart) / 1000;

    const bodies: unknown[][] = Array.from({ length: PARTITIONS }, () => []);
    for (let from = 0, n = 0; from < events.length; from += RECORDS_PER_BODY, n++) {
      bodies[n % PARTITIONS]!.push({
        records: events.slice(from, from + RECORDS_PER_BODY).map(diagnosticRecord),
      });
    }
    const hubStart = performance.now();
    for (const [id, partition] of bodies.entries()) host.eventHubs.publish(HUB, String(id), partition);
    await drained();
    const hubSeconds = (performance.now() - hubStart) / 1000;

    const routeRate = RECORDS / routeSeconds;
    const hubRate = RECORDS / hubSeconds;
    console.log(
      `  ${RECORDS} events: audit route ${routeSeconds.toFixed(2)} s, Event Hubs trigger ${hubSeconds.toFixed(2)} s`,
    );
    report({
      figure: 'Event Hubs feed, records accepted per second',
      value: hubRate,
      baseline: { what: 'audit webhook route, events/s', value: routeRate },
      goal: '>= 0.5x',
      met: hubRate / routeRate >= 0.5,
    });
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
