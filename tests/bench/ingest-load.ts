/**
 * The ingest benchmark's load generator, in a process of its own as a cluster's API server is: it
 * builds every audit EventList body first, then posts them with `clients` concurrent connections
 * and reports the accepted events, the seconds they took, how busy the machine was meanwhile and its
 * own CPU time, as one JSON line on stdout.
 * Usage: ingest-load.ts <url> <batches> <batch size> <clients>
 */
import { readFileSync } from 'node:fs';

const [url, batchesArg, sizeArg, clientsArg] = process.argv.slice(2);
const BATCHES = Number(batchesArg);
const BATCH_SIZE = Number(sizeArg);
const CLIENTS = Number(clientsArg);

export function auditEvent(index: number, user: string) {
  const name = `cm-${index}`;
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'bench', resourceVersion: String(index + 1), uid: `uid-${index}` },
    data: { value: 'x'.repeat(512), index: String(index) },
  };
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `audit-${index}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/bench/configmaps/${name}`,
    verb: 'update',
    user: { username: user, groups: ['system:authenticated'] },
    objectRef: { resource: 'configmaps', namespace: 'bench', name, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    responseObject: object,
    requestReceivedTimestamp: '2026-11-29T00:00:00.000000Z',
    stageTimestamp: '2026-11-29T00:00:00.010000Z',
  };
}

/** All cores' time since boot, and the idle part of it (Linux; null elsewhere). */
function machineTicks(): { total: number; idle: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { total: fields.reduce((sum, n) => sum + n, 0), idle: fields[3]! + fields[4]! };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  // batch b is posted by client b % CLIENTS, as that client's user
  const bodies = Array.from({ length: BATCHES }, (_, batch) =>
    JSON.stringify({
      kind: 'EventList',
      apiVersion: 'audit.k8s.io/v1',
      items: Array.from({ length: BATCH_SIZE }, (_, i) =>
        auditEvent(batch * BATCH_SIZE + i, `user-${batch % CLIENTS}`),
      ),
    }),
  );
  let next = 0;
  let accepted = 0;
  const cpuBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < BATCHES) {
        const body = bodies[next++]!;
        const response = await fetch(url!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
        accepted += ((await response.json()) as { accepted: number }).accepted;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const machineAfter = machineTicks();
  const machineBusy =
    machineBefore && machineAfter
      ? 1 - (machineAfter.idle - machineBefore.idle) / (machineAfter.total - machineBefore.total)
      : null;
  const loadCpuSeconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(`${JSON.stringify({ accepted, seconds, machineBusy, loadCpuSeconds })}\n`);
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
