/**
 * Durable ingest benchmark (`npm run bench -- ingest`): the real app on the embedded host as
 * `npm start` runs it (compiled by `npm run build`, real clock, SQLite, a local bare repository,
 * activities on one thread; set ACTIVITY_THREADS=0 to run them on the main thread), driven over
 * HTTP. INGEST_BATCHES (default 100) sets the run's length.
 * 1. Throughput: audit EventLists of 400 events (the apiserver's webhook batch size) posted by 4
 *    concurrent clients to a target with the default window; events accepted per second (the
 *    apiserver's audit webhook tops out near 4,000/s). Each accepted batch is durable
 *    when answered. The clients run in a process of their own (`ingest-load.ts`), as the API server
 *    does, with their request bodies built before the clock starts. Also the host's CPU time per
 *    1,000 events (all its threads, and its main thread alone): steadier than the rate, which moves
 *    with whatever else the machine's two cores run. Both sides take the same warm-up load first
 *    (WARMUP_BATCHES), so both are measured in steady ingest.
 * 2. Entity operations per accepted batch (goal: 1), counted at the host's client API.
 *    Beside it, before and after, the same load against its physical baseline (`durable-receiver.ts`:
 *    the same HTTP stack parsing the EventLists, appending them to a file and fsyncing each): the
 *    rate as a ratio to the baseline's mean (goal ≥ 0.5×).
 * 3. What each accepted batch costs the Azure Storage backend: the same load (STORAGE_BATCHES,
 *    default 20) on a host in the `azure-storage` faithful mode, which counts the queue, table and
 *    blob requests and payload bytes DurableTask.AzureStorage would spend
 *    (embedded/azure-storage-costs.ts), per accepted batch, beside the least a durable design needs:
 *    one queue message and one row, each carrying the batch's signal. And on the Durable Task
 *    Scheduler: the same load on a host in the `dts` mode, which counts the actions the scheduler
 *    bills (embedded/scheduler-actions.ts), per accepted batch, beside the least: the batch's
 *    signal, one entity operation.
 * 4. Change-to-pushed latency p50/p99 with a 1 s idle window and no push cooldown (goal p99 ≤
 *    idle window + 1 s): one change at a time, timed until the remote branch holds its commit.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { type StorageCounts, storageRequests } from '../../embedded/azure-storage-costs';
import { type SchedulerActions, schedulerActionTotal } from '../../embedded/scheduler-actions';
import { startCompiledApp } from './compiled-app';
import { type Figure, report } from './figures';
import { auditEvent } from './ingest-load';

const run = promisify(execFile);
const BATCHES = Number(process.env.INGEST_BATCHES ?? 100);
const BATCH_SIZE = 400;
const CLIENTS = 4;
const LATENCY_SAMPLES = Number(process.env.LATENCY_SAMPLES ?? 20);
const STORAGE_BATCHES = Number(process.env.STORAGE_BATCHES ?? 20);
/**
 * Batches each side takes before its measured run (INGEST_WARMUP_BATCHES): the rate and CPU are of
 * steady ingest, not of a branch's first minutes (its driver's start, its first publication into an
 * empty repository, code not yet compiled), which a long-running host pays once per branch.
 */
const WARMUP_BATCHES = Number(process.env.INGEST_WARMUP_BATCHES ?? 4);

const ROOT = join(__dirname, '..', '..');

/** CPU time of this process's main thread in ms (Linux; null elsewhere). */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks of 10 ms
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU ms a process has used so far, all its threads (Linux /proc; NaN elsewhere). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

interface LoadResult {
  accepted: number;
  seconds: number;
  machineBusy: number | null;
  loadCpuSeconds: number;
}

async function postLoad(url: string, batches = BATCHES): Promise<LoadResult> {
  const load = await run(process.execPath, [
    '--import',
    'tsx',
    join(__dirname, 'ingest-load.ts'),
    url,
    String(batches),
    String(BATCH_SIZE),
    String(CLIENTS),
  ]);
  return JSON.parse(load.stdout) as LoadResult;
}

/** The same load against the durable receiver, in a process of its own: events/s and its CPU per 1,000. */
async function baselineRun(): Promise<{ eventsPerSecond: number; cpuPerThousand: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-receiver-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'durable-receiver.ts'), dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('exit', (code) => reject(new Error(`durable receiver exited ${code}`)));
    });
    await postLoad(`${url}/api/v1/targets/bulk/audit`, WARMUP_BATCHES);
    const before = cpuMsOf(child.pid!);
    const result = await postLoad(`${url}/api/v1/targets/bulk/audit`);
    const cpu = cpuMsOf(child.pid!) - before;
    return {
      eventsPerSecond: result.accepted / result.seconds,
      cpuPerThousand: (cpu / result.accepted) * 1000,
    };
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface BackendCost {
  batches: number;
  counts: StorageCounts;
  actions: SchedulerActions;
  /** Mean bytes of the client signals the batches sent. */
  signalBytes: number;
}

/** How many files the remote's main branch holds (0 before its first commit). */
async function filesOn(remote: string): Promise<number> {
  const listed = await run('git', [`--git-dir=${remote}`, 'ls-tree', '-r', '--name-only', 'main'], {
    maxBuffer: 64 * 1024 * 1024,
  }).catch(() => ({ stdout: '' }));
  return listed.stdout.split('\n').filter((line) => line !== '').length;
}

/**
 * The load on a fresh host in a faithful mode: what the backend would spend on it (`azure-storage`:
 * its storage requests and bytes; `dts`: the actions the Durable Task Scheduler bills), counted from
 * the first request until the branch holds every change and the host is idle: the publications and
 * the windows' timers included.
 */
async function backendCostRun(semantics: 'azure-storage' | 'dts'): Promise<BackendCost> {
  const dataDir = mkdtempSync(join(tmpdir(), `ks-bench-${semantics}-`));
  const bulkRemote = join(dataDir, 'bulk.git');
  await run('git', ['init', '-q', '--bare', '-b', 'main', bulkRemote]);
  const host = await startCompiledApp({
    dataDir,
    activityThreads: Number(process.env.ACTIVITY_THREADS ?? 1),
    semantics,
    config: {
      repositories: [{ name: 'bulk', url: bulkRemote }],
      targets: [{ name: 'bulk', repository: 'bulk', branch: 'main', path: '.' }],
      server: { auth: 'disabled' },
    },
  });
  try {
    const signals: number[] = [];
    const signal = host.client.signalEntity.bind(host.client);
    host.client.signalEntity = (name, key, operation, input) => {
      if (name === 'branch') signals.push(Buffer.byteLength(input ?? '', 'utf8'));
      signal(name, key, operation, input);
    };
    const { accepted } = await postLoad(`${host.url}/api/v1/targets/bulk/audit`, STORAGE_BATCHES);
    // every event names an object of its own: the load is published when the branch holds them all
    // (the last window closes on its idle timer, which an idle host does not wait for)
    const deadline = performance.now() + 60_000;
    while ((await filesOn(bulkRemote)) < accepted) {
      if (performance.now() > deadline)
        throw new Error(`${semantics}: the load was not published within 60 s`);
      await sleep(200);
    }
    await host.waitForIdle();
    return {
      batches: accepted / BATCH_SIZE,
      counts: structuredClone(host.engine.storage),
      actions: structuredClone(host.engine.actions),
      signalBytes: signals.reduce((a, b) => a + b, 0) / Math.max(1, signals.length),
    };
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A figure reported beside its baseline (if any), with no goal of its own. */
function measured(figure: string, value: number, baseline: Figure['baseline'] = null): void {
  report({ figure, value, baseline, goal: '—', met: null });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  // what `npm start` runs: tsc's output, not the sources transformed on load
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  const baselineBefore = await baselineRun();
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-ingest-'));
  const remote = join(dataDir, 'state.git');
  const bulkRemote = join(dataDir, 'bulk.git');
  await run('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  await run('git', ['init', '-q', '--bare', '-b', 'main', bulkRemote]);
  const host = await startCompiledApp({
    dataDir,
    activityThreads: Number(process.env.ACTIVITY_THREADS ?? 1),
    config: {
      repositories: [
        { name: 'state', url: remote },
        { name: 'bulk', url: bulkRemote },
      ],
      targets: [
        // Throughput: the default window (5 s idle, 1 min at most) on a repository of its own.
        { name: 'bulk', repository: 'bulk', branch: 'main', path: '.' },
        // Latency: a 1 s idle window, measured on a quiet branch.
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: '.',
          window: { idleTimeout: '1s', maxDuration: '1m' },
        },
      ],
      limits: { pushCooldown: '0s' },
      server: { auth: 'disabled' },
    },
  });
  let entityOperations = 0;
  let driverWakes = 0;
  const raise = host.client.raiseEvent.bind(host.client);
  host.client.raiseEvent = (instanceId, name, data) => {
    if (name === 'wake') driverWakes++;
    return raise(instanceId, name, data);
  };
  const signal = host.client.signalEntity.bind(host.client);
  host.client.signalEntity = (name, key, operation, input) => {
    if (name === 'branch') entityOperations++;
    signal(name, key, operation, input);
  };

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${host.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ accepted: number }>;
  };

  // Warm-up: the first request builds the runtime and starts the latency branch's driver; then the
  // throughput branch takes the warm-up load (its driver's start, its first publication into the
  // empty repository), as the receiver takes it before its measured run.
  await post('/api/v1/targets/prod/audit', {
    kind: 'EventList',
    apiVersion: 'audit.k8s.io/v1',
    items: [auditEvent(0, 'warmup')],
  });
  await postLoad(`${host.url}/api/v1/targets/bulk/audit`, WARMUP_BATCHES);
  await host.waitForIdle();
  entityOperations = 0;
  driverWakes = 0;

  const cpuBefore = process.cpuUsage();
  const mainBefore = mainThreadCpuMs();
  const { accepted, seconds, machineBusy, loadCpuSeconds } = await postLoad(
    `${host.url}/api/v1/targets/bulk/audit`,
  );
  const cpu = process.cpuUsage(cpuBefore);
  const mainAfter = mainThreadCpuMs();
  const eventsPerSecond = accepted / seconds;
  const operationsPerBatch = entityOperations / BATCHES;
  const wakesPerBatch = driverWakes / BATCHES;
  await host.waitForIdle();

  const head = async () =>
    (
      await run('git', [`--git-dir=${remote}`, 'rev-parse', '--verify', '-q', 'main']).catch(() => ({
        stdout: '',
      }))
    ).stdout.trim();
  const latencies: number[] = [];
  for (let sample = 0; sample < LATENCY_SAMPLES; sample++) {
    const before = await head();
    const sent = performance.now();
    await post('/api/v1/targets/prod/events', {
      events: [
        {
          type: 'MODIFIED',
          resource: 'configmaps',
          author: { username: 'latency' },
          object: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'latency', namespace: 'bench', resourceVersion: String(10_000_000 + sample) },
            data: { sample: String(sample) },
          },
        },
      ],
    });
    while ((await head()) === before) {
      if (performance.now() - sent > 30_000) throw new Error('a change was not pushed within 30 s');
      await sleep(10);
    }
    latencies.push(performance.now() - sent);
  }
  latencies.sort((a, b) => a - b);
  await host.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const storage = await backendCostRun('azure-storage');
  const scheduler = await backendCostRun('dts');
  const baselineAfter = await baselineRun();
  const baselineRate = (baselineBefore.eventsPerSecond + baselineAfter.eventsPerSecond) / 2;
  const baselineCpu = (baselineBefore.cpuPerThousand + baselineAfter.cpuPerThousand) / 2;

  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  console.log(
    `ingest: ${accepted} audit events in ${BATCHES} batches of ${BATCH_SIZE}, ${CLIENTS} clients, ${seconds.toFixed(2)} s; ` +
      `the machine's ${os.cpus().length} cores ${machineBusy === null ? 'n/a' : `${Math.round(machineBusy * 100)}%`} busy meanwhile, of which the load generator ${loadCpuSeconds.toFixed(2)} s`,
  );
  report({
    figure: 'ingest: audit events accepted per second',
    value: eventsPerSecond,
    baseline: { what: 'durable receiver (append + fsync)', value: baselineRate },
    goal: '>= 0.5x baseline',
    met: eventsPerSecond >= 0.5 * baselineRate,
  });
  const perThousand = (ms: number) => (ms / accepted) * 1000;
  const mainMs = mainBefore === null || mainAfter === null ? null : mainAfter - mainBefore;
  const hostCpu = perThousand((cpu.user + cpu.system) / 1000);
  report({
    figure: 'ingest: host CPU per 1,000 events (ms)',
    value: hostCpu,
    baseline: { what: 'durable receiver', value: baselineCpu },
    goal: '<= 4x baseline',
    met: hostCpu <= 4 * baselineCpu,
  });
  if (mainMs !== null) {
    measured('ingest: host main-thread CPU per 1,000 events (ms)', perThousand(mainMs));
  }
  report({
    figure: 'ingest: entity operations per accepted batch',
    value: operationsPerBatch,
    baseline: null,
    goal: '1',
    met: operationsPerBatch <= 1,
  });
  measured('ingest: driver wakes per accepted batch', wakesPerBatch);
  const per = (n: number) => n / storage.batches;
  const { queue, table, blob } = storage.counts;
  console.log(
    `ingest, azure-storage: ${storage.batches} batches; per batch: queue ${per(queue.add).toFixed(2)} add, ${per(queue.get).toFixed(2)} get, ${per(queue.delete).toFixed(2)} delete; ` +
      `table ${per(table.query).toFixed(2)} query, ${per(table.transaction).toFixed(2)} transaction (${per(table.rowsWritten).toFixed(2)} rows), ${per(table.instanceMerge).toFixed(2)} instance merge; ` +
      `blob ${per(blob.upload).toFixed(2)} upload, ${per(blob.download).toFixed(2)} download, ${per(blob.delete).toFixed(2)} delete`,
  );
  measured(
    'ingest, azure-storage: storage requests per accepted batch',
    per(storageRequests(storage.counts)),
    { what: 'one queue message + one row', value: 2 },
  );
  measured(
    'ingest, azure-storage: storage bytes per accepted batch (written + read)',
    per(storage.counts.bytesWritten + storage.counts.bytesRead),
    { what: 'the signal in one message + one row', value: 2 * storage.signalBytes },
  );
  const { entityStates } = storage.counts;
  const meanState = entityStates.bytes / Math.max(1, entityStates.batches) / 1024;
  report({
    figure: `ingest, azure-storage: entity state carried per batch, mean (KB; max ${(entityStates.maxBytes / 1024).toFixed(0)})`,
    value: meanState,
    baseline: null,
    goal: '<= 16 KB',
    met: meanState <= 16,
  });
  const perScheduled = (n: number) => n / scheduler.batches;
  const kinds = Object.entries(scheduler.actions)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${perScheduled(n).toFixed(2)} ${kind}`);
  console.log(
    `ingest, Durable Task Scheduler: ${scheduler.batches} batches; actions per batch: ${kinds.join(', ')}`,
  );
  measured(
    'ingest, Durable Task Scheduler: actions per accepted batch',
    perScheduled(schedulerActionTotal(scheduler.actions)),
    { what: 'the signal, one entity operation', value: 1 },
  );
  measured('change-to-pushed latency p50, 1 s idle window (ms)', p50);
  report({
    figure: `change-to-pushed latency p99 of ${LATENCY_SAMPLES}, 1 s idle window (ms)`,
    value: p99,
    baseline: { what: 'idle window', value: 1000 },
    goal: '<= 2000 ms',
    met: p99 <= 2000,
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
