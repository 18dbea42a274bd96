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
 *    with whatever else the machine's two cores run. Beside it, the same load against its physical
 *    baseline (`durable-receiver.ts`: the same HTTP stack parsing the EventLists, appending them to
 *    a file and fsyncing each; goals: ≥ 0.5× its rate, ≤ 4× its CPU). Both sides take the same
 *    warm-up loads first (CODE_WARMUP_BATCHES on a target of their own, then WARMUP_BATCHES on the
 *    measured one), so both are measured in steady ingest; then ROUNDS measured runs each, taking
 *    turns, and each figure is the median of its side's rounds.
 * 2. Entity operations per accepted batch (goal: 1), counted at the host's client API, and the
 *    driver's wakes, over the measured rounds.
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
import { type Figure, median, percentile, report } from './figures';
import { auditEvent } from './ingest-load';

const run = promisify(execFile);
const BATCHES = Number(process.env.INGEST_BATCHES ?? 100);
const BATCH_SIZE = 400;
const CLIENTS = 4;
const LATENCY_SAMPLES = Number(process.env.LATENCY_SAMPLES ?? 20);
const STORAGE_BATCHES = Number(process.env.STORAGE_BATCHES ?? 20);
/**
 * Batches each measured branch takes before its measured run (INGEST_WARMUP_BATCHES; the receiver,
 * which keeps no branch, takes them once): the rate and CPU are of steady ingest, not of a branch's
 * first minutes (its driver's start, its first publication into an empty repository), which a
 * long-running host pays once per branch.
 */
const WARMUP_BATCHES = Number(process.env.INGEST_WARMUP_BATCHES ?? 4);
/**
 * Batches each side takes first, on a target and repository of its own (INGEST_CODE_WARMUP_BATCHES):
 * the code's warm-up. V8 optimizes a function once it has run enough, and what runs once per batch
 * (the route, the entity's operation, a publication's steps) needs hundreds of batches: after the
 * 4 above alone, V8's compiler threads spent 1.5 s optimizing during a measured run of 40,000
 * events (27–38 ms of CPU per 1,000 events), a cost a long-running host pays once, in its first
 * minutes. Measured runs of a standalone loop: 107–127 ms per 1,000 events after 4 batches, 84–95
 * after 100 more, 66–80 after 300, 66 after 600. Its own repository, so the measured branch starts
 * as small as before (a publication's tree grows with the branch).
 */
const CODE_WARMUP_BATCHES = Number(process.env.INGEST_CODE_WARMUP_BATCHES ?? 300);
/**
 * Measured runs on each side (INGEST_ROUNDS), taking turns with the receiver's, each figure the median:
 * the same code and load moved 20% between single runs minutes apart on this machine.
 */
const ROUNDS = Number(process.env.INGEST_ROUNDS ?? 5);

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

/** One measured run of the load: events accepted per second, and CPU per 1,000 events. */
interface Round {
  eventsPerSecond: number;
  cpuPerThousand: number;
}

/**
 * The durable receiver in a process of its own, warmed up as the host is; each `round` is one
 * measured run of the load against it.
 */
async function startReceiver(): Promise<{ round(): Promise<Round>; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-receiver-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'durable-receiver.ts'), dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = async () => {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('exit', (code) => reject(new Error(`durable receiver exited ${code}`)));
    });
    await postLoad(`${url}/api/v1/targets/warm/audit`, CODE_WARMUP_BATCHES);
    await postLoad(`${url}/api/v1/targets/bulk/audit`, WARMUP_BATCHES);
    return {
      round: async () => {
        const before = cpuMsOf(child.pid!);
        const result = await postLoad(`${url}/api/v1/targets/bulk/audit`);
        const cpu = cpuMsOf(child.pid!) - before;
        return {
          eventsPerSecond: result.accepted / result.seconds,
          cpuPerThousand: (cpu / result.accepted) * 1000,
        };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
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
 * Waits until `remote` holds the `accepted` events' objects: every event names an object of its own,
 * so a load is published when the branch holds them all (its last window closes on its idle timer,
 * which an idle host does not wait for).
 */
async function published(remote: string, accepted: number, what: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  while ((await filesOn(remote)) < accepted) {
    if (performance.now() > deadline) throw new Error(`${what}: the load was not published within 120 s`);
    await sleep(200);
  }
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
    await published(bulkRemote, accepted, semantics);
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

async function main(): Promise<void> {
  // what `npm start` runs: tsc's output, not the sources transformed on load
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-ingest-'));
  const remote = join(dataDir, 'state.git');
  const warmRemote = join(dataDir, 'warm.git');
  // each round's throughput branch in a repository of its own, so each starts as small as the first
  const bulkRemotes = Array.from({ length: ROUNDS }, (_, r) => join(dataDir, `bulk-${r}.git`));
  for (const repository of [remote, warmRemote, ...bulkRemotes])
    await run('git', ['init', '-q', '--bare', '-b', 'main', repository]);
  const host = await startCompiledApp({
    dataDir,
    activityThreads: Number(process.env.ACTIVITY_THREADS ?? 1),
    config: {
      repositories: [
        { name: 'state', url: remote },
        { name: 'warm', url: warmRemote },
        ...bulkRemotes.map((url, r) => ({ name: `bulk-${r}`, url })),
      ],
      targets: [
        // Throughput: the default window (5 s idle, 1 min at most), a repository for each round.
        ...bulkRemotes.map((_, r) => ({
          name: `bulk-${r}`,
          repository: `bulk-${r}`,
          branch: 'main',
          path: '.',
        })),
        // The code's warm-up, the same load on a repository of its own.
        { name: 'warm', repository: 'warm', branch: 'main', path: '.' },
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
  let measuring = false;
  let entityOperations = 0;
  let driverWakes = 0;
  const raise = host.client.raiseEvent.bind(host.client);
  host.client.raiseEvent = (instanceId, name, data) => {
    if (measuring && name === 'wake') driverWakes++;
    return raise(instanceId, name, data);
  };
  const signal = host.client.signalEntity.bind(host.client);
  host.client.signalEntity = (name, key, operation, input) => {
    if (measuring && name === 'branch') entityOperations++;
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

  // Warm-up: the first request builds the runtime and starts the latency branch's driver; the code
  // warms up on a branch of its own, published whole before anything is measured, as the receiver
  // took the same load before.
  await post('/api/v1/targets/prod/audit', {
    kind: 'EventList',
    apiVersion: 'audit.k8s.io/v1',
    items: [auditEvent(0, 'warmup')],
  });
  const warm = await postLoad(`${host.url}/api/v1/targets/warm/audit`, CODE_WARMUP_BATCHES);
  await published(warmRemote, warm.accepted, 'the code warm-up');

  /**
   * One round on kubescribe: the round's throughput branch takes the warm-up load (its driver's
   * start, its first publication into the empty repository), then the measured load, which is
   * published whole before the next round.
   */
  const hostRound = async (r: number) => {
    const url = `${host.url}/api/v1/targets/bulk-${r}/audit`;
    await postLoad(url, WARMUP_BATCHES);
    await host.waitForIdle();
    measuring = true;
    const cpuBefore = process.cpuUsage();
    const mainBefore = mainThreadCpuMs();
    const load = await postLoad(url);
    const cpu = process.cpuUsage(cpuBefore);
    const mainAfter = mainThreadCpuMs();
    measuring = false;
    await published(bulkRemotes[r]!, load.accepted, `round ${r + 1}`);
    await host.waitForIdle();
    const perThousand = (ms: number) => (ms / load.accepted) * 1000;
    return {
      ...load,
      eventsPerSecond: load.accepted / load.seconds,
      cpuPerThousand: perThousand((cpu.user + cpu.system) / 1000),
      mainPerThousand: mainBefore === null || mainAfter === null ? null : perThousand(mainAfter - mainBefore),
    };
  };
  const rounds: { host: Awaited<ReturnType<typeof hostRound>>; receiver: Round }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // the two take turns going first, so neither always meets the machine the other left
    if (r % 2 === 0) {
      const first = await receiver.round();
      rounds.push({ receiver: first, host: await hostRound(r) });
    } else {
      const first = await hostRound(r);
      rounds.push({ host: first, receiver: await receiver.round() });
    }
  }
  await receiver.stop();
  const eventsPerSecond = median(rounds.map((round) => round.host.eventsPerSecond));
  const hostCpu = median(rounds.map((round) => round.host.cpuPerThousand));
  const mainCpus = rounds.flatMap((round) => round.host.mainPerThousand ?? []);
  const baselineRate = median(rounds.map((round) => round.receiver.eventsPerSecond));
  const baselineCpu = median(rounds.map((round) => round.receiver.cpuPerThousand));
  const operationsPerBatch = entityOperations / (BATCHES * ROUNDS);
  const wakesPerBatch = driverWakes / (BATCHES * ROUNDS);

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

  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  for (const [r, round] of rounds.entries()) {
    const { host: ours, receiver: theirs } = round;
    console.log(
      `ingest round ${r + 1} of ${ROUNDS}: ${ours.accepted} audit events in ${BATCHES} batches of ${BATCH_SIZE}, ${CLIENTS} clients, ${ours.seconds.toFixed(2)} s, ` +
        `the machine's ${os.cpus().length} cores ${ours.machineBusy === null ? 'n/a' : `${Math.round(ours.machineBusy * 100)}%`} busy meanwhile, of which the load generator ${ours.loadCpuSeconds.toFixed(2)} s; ` +
        `kubescribe ${Math.round(ours.eventsPerSecond)}/s, ${ours.cpuPerThousand.toFixed(1)} ms per 1,000 (main thread ${ours.mainPerThousand?.toFixed(1) ?? 'n/a'}); ` +
        `receiver ${Math.round(theirs.eventsPerSecond)}/s, ${theirs.cpuPerThousand.toFixed(1)} ms per 1,000`,
    );
  }
  report({
    figure: `ingest: audit events accepted per second (median of ${ROUNDS})`,
    value: eventsPerSecond,
    baseline: { what: 'durable receiver (append + fsync)', value: baselineRate },
    goal: '>= 0.5x baseline',
    met: eventsPerSecond >= 0.5 * baselineRate,
  });
  report({
    figure: `ingest: host CPU per 1,000 events (ms, median of ${ROUNDS})`,
    value: hostCpu,
    baseline: { what: 'durable receiver', value: baselineCpu },
    goal: '<= 4x baseline',
    met: hostCpu <= 4 * baselineCpu,
  });
  if (mainCpus.length > 0) {
    measured(`ingest: host main-thread CPU per 1,000 events (ms, median of ${ROUNDS})`, median(mainCpus));
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
