/**
 * A long Git outage at scale (`npm run bench -- outage`): the app on the embedded host as `npm start`
 * runs it (compiled, default limits: an 8 MiB branch budget, retries 10 s doubling to 5 min), but on
 * a virtual clock that also drives `Date`, so hours of durable timers (windows, retries, the driver's
 * heartbeat, the keeper) take minutes. The remote is a real `git http-backend` behind a fault proxy.
 *
 * After one batch published with Git up, every Git request is refused for OUTAGE_HOURS (default 6)
 * virtual hours. Each virtual second a forwarder posts one batch of OUTAGE_RATE (default 50) watch
 * events until intake answers 429 (the budget); from then on one batch every OUTAGE_OFFER_EVERY_S
 * (default 10) virtual seconds, each refused whole and counted (offering every second costs about
 * 40 ms of wall time per request, the branch state read anew for its admission). The mix
 * (OUTAGE_MIX=mixed): 70% MODIFIED of 1,000 ConfigMaps in 20 namespaces (the same paths over and
 * over), 20% ADDED of new Deployments (a path each), 10% DELETED of the oldest of those;
 * OUTAGE_MIX=small-distinct makes every change a new ConfigMap of a few bytes (the most paths the
 * budget holds). Every accepted change's content carries a unique marker.
 *
 * Figures: the changes accepted; the 429s and their Retry-After; the payload store at the budget;
 * host memory (RSS and V8 heap used less compiled code, each after a full GC, sampled every
 * OUTAGE_SAMPLE_S, default 600 virtual seconds) and the embedded store's pages in use at the end as
 * ratios to the budget's (goal ≤ 1.1×, flat), its files against the log's checkpoint size (bounded); the whole heap at the end against an hour after the budget,
 * once every code path of the outage has run (goal ≤ 1.05×); the largest branch entity state (goal
 * ≤ 1 MB). Then Git returns, the clock moves a second at a time, and the figure is the virtual
 * minutes (and wall seconds) until the branch holds nothing and the remote holds every accepted
 * change's latest content (each path's latest marker, deleted paths absent), and the commits it took.
 * A change accepted and not on the remote fails the run. It prints its wall times; OUTAGE_HOURS=0.5
 * makes a short run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { type VirtualClock, virtualClock } from '../../embedded/clock';
import type * as BranchKeys from '../../shared/app/runtime/branch-key';
import type { BranchState } from '../../shared/branch';
import { startProxiedRemote } from '../support/git/start-proxied-remote';
import { startCompiledApp } from './compiled-app';
import { median, report } from './figures';
import { folderBytes } from './folder-bytes';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const HOURS = Number(process.env.OUTAGE_HOURS ?? 6);
const RATE = Number(process.env.OUTAGE_RATE ?? 50);
const SAMPLE_EVERY_S = Number(process.env.OUTAGE_SAMPLE_S ?? 600);
/** How long after the budget memory is taken again, as the baseline that warm-up does not move. */
const SETTLE_S = 3600;
/** How often the branch's entity state is read for its size (reading it is not free). */
const STATE_EVERY_S = 30;
/** Once intake answers 429, a batch is offered every this many virtual seconds (1: every second). */
const OFFER_EVERY_S = Number(process.env.OUTAGE_OFFER_EVERY_S ?? 10);
/**
 * `mixed` (default) as above; `small-distinct`: every change a new ConfigMap of a few bytes, the
 * most paths the budget can hold, so the largest branch state an outage reaches.
 */
const MIX = process.env.OUTAGE_MIX === 'small-distinct' ? 'small-distinct' : 'mixed';
const HOT_OBJECTS = 1000;
/** The write-ahead log's size at the embedded store's automatic checkpoint (embedded/store.ts). */
const WAL_CHECKPOINT_BYTES = 10_000 * 4096;
const NAMESPACES = 20;
/** Virtual time Git may take to publish everything once it returns, before the run fails. */
const DRAIN_LIMIT_S = 60 * 60;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Makes `Date` (now and `new Date()`) read the virtual clock: the app stamps receipt times with it. */
function dateFollows(clock: VirtualClock): void {
  const RealDate = Date;
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) =>
      Reflect.construct(target, args.length === 0 ? [clock.now()] : args, newTarget),
    apply: () => new RealDate(clock.now()).toString(),
    get: (target, property, receiver) =>
      property === 'now' ? () => clock.now() : Reflect.get(target, property, receiver),
  });
}

/**
 * Host memory after a full GC: RSS, V8 heap used, and the heap's data (heap used less compiled
 * code, which V8 keeps adding to for hours as it optimizes code paths that run more often).
 */
function memory() {
  gc();
  const usage = process.memoryUsage();
  const code = getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith('code'))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  return { rss: usage.rss, heapUsed: usage.heapUsed, heapData: usage.heapUsed - code };
}

/** The latest accepted state of every path the load touched: its content's marker, or deleted. */
type Expected = Map<string, string | null>;

/** Builds each virtual second's batch of watch events, and what the remote must hold if it is accepted. */
function loadMix() {
  let change = 0;
  let created = 0;
  let deleted = 0;
  const marker = () => `rev-${change++}-end`;
  const hot = (i: number) => {
    const rev = marker();
    const namespace = `team-${i % NAMESPACES}`;
    return {
      path: `clusters/prod/${namespace}/configmaps/settings-${i}.yaml`,
      rev,
      event: {
        type: 'MODIFIED',
        resource: 'configmaps',
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `settings-${i}`, namespace, resourceVersion: String(change) },
          data: { rev, 'app.properties': `feature.${i}=on\n`.repeat(24) },
        },
      },
    };
  };
  const deployment = (n: number, type: 'ADDED' | 'DELETED') => {
    const rev = marker();
    const namespace = `team-${n % NAMESPACES}`;
    return {
      path: `clusters/prod/${namespace}/apps/deployments/job-${n}.yaml`,
      rev: type === 'DELETED' ? null : rev,
      event: {
        type,
        resource: 'deployments',
        object: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: `job-${n}`, namespace, resourceVersion: String(change), labels: { rev } },
          spec: {
            replicas: 1 + (n % 3),
            selector: { matchLabels: { app: `job-${n}` } },
            template: {
              metadata: { labels: { app: `job-${n}` } },
              spec: { containers: [{ name: 'main', image: `registry.example.com/job:${n}`, args: [rev] }] },
            },
          },
        },
      },
    };
  };
  const small = (n: number) => {
    const rev = marker();
    const namespace = `team-${n % NAMESPACES}`;
    return {
      path: `clusters/prod/${namespace}/configmaps/flag-${n}.yaml`,
      rev,
      event: {
        type: 'ADDED',
        resource: 'configmaps',
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `flag-${n}`, namespace, resourceVersion: String(change) },
          data: { rev },
        },
      },
    };
  };
  return (): { events: unknown[]; expect: (expected: Expected) => void } => {
    const picked: { path: string; rev: string | null; event: unknown }[] = [];
    for (let i = 0; i < RATE; i++) {
      const slot = i % 10;
      if (MIX === 'small-distinct') picked.push(small(created++));
      else if (slot < 7) picked.push(hot((change * 7919) % HOT_OBJECTS));
      else if (slot < 9 || deleted >= created) picked.push(deployment(created++, 'ADDED'));
      else picked.push(deployment(deleted++, 'DELETED'));
    }
    return {
      events: picked.map((p) => p.event),
      expect: (expected) => {
        for (const p of picked) expected.set(p.path, p.rev);
      },
    };
  };
}

async function main(): Promise<void> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  const { branchKeyFor } = require(
    join(ROOT, 'dist', 'shared', 'app', 'runtime', 'branch-key.js'),
  ) as typeof BranchKeys;
  const served = await startProxiedRemote();
  const { remote, proxy } = served;
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-outage-'));
  // Whole seconds keep Git's commit times (seconds) and the branch's instants comparable.
  const clock = virtualClock(Math.floor(Date.now() / 1000) * 1000);
  dateFollows(clock);
  const warnings = new Map<string, number>();
  const host = await startCompiledApp({
    dataDir,
    clock,
    hostJson: join(ROOT, 'host.json'),
    // activities on the main thread: a worker thread's `Date` would not follow the virtual clock
    activityThreads: 0,
    logger: (level, event) => {
      if (level === 'warn' || level === 'error') warnings.set(event, (warnings.get(event) ?? 0) + 1);
    },
    config: {
      repositories: [{ name: 'state', url: served.url }],
      targets: [{ name: 'prod', repository: 'state', branch: 'main', path: 'clusters/prod' }],
      server: { auth: 'disabled' },
    },
  });
  const branchKey = branchKeyFor(served.url, 'main').key;
  const branch = () => {
    const read = host.client.readEntityState('branch', branchKey);
    return read.exists ? (read.state as { branch: BranchState }).branch : undefined;
  };
  const stateBytes = () => {
    const read = host.client.readEntityState('branch', branchKey);
    return read.exists ? JSON.stringify(read.state).length : 0;
  };
  // what the store holds: its pages in use, read through the write-ahead log by a reader of its
  // own. The files' sizes are not it: the log grows to the host's checkpoint size
  // (`wal_autocheckpoint`, 10,000 pages) and keeps that size, whatever it holds, and the database
  // file keeps its free pages
  const storeBytes = () => {
    const db = new Database(join(dataDir, 'host.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const pragma = (name: string) => Number(db.pragma(name, { simple: true }));
      return (pragma('page_count') - pragma('freelist_count')) * pragma('page_size');
    } finally {
      db.close();
    }
  };
  const storeFileBytes = () =>
    readdirSync(dataDir)
      .filter((name) => name.startsWith('host.sqlite'))
      .reduce((sum, name) => sum + statSync(join(dataDir, name)).size, 0);
  const tick = async () => {
    clock.advance(1000);
    await host.waitForIdle();
  };
  const git = async (...args: string[]) =>
    (await run('git', [`--git-dir=${remote}`, ...args], { maxBuffer: 1 << 30 })).stdout.trim();
  const commits = async () => Number(await git('rev-list', '--count', 'main'));

  const nextBatch = loadMix();
  const expected: Expected = new Map();
  const post = async () => {
    const batch = nextBatch();
    const response = await fetch(`${host.url}/api/v1/targets/prod/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch.events }),
    });
    const body = (await response.json()) as { accepted?: number; ignored?: unknown[] };
    if (response.status === 202) {
      if (body.accepted !== batch.events.length)
        throw new Error(`a batch was half accepted: ${JSON.stringify(body)}`);
      batch.expect(expected);
    } else if (response.status !== 429) {
      throw new Error(`intake answered ${response.status}: ${JSON.stringify(body)}`);
    }
    return { status: response.status, retryAfter: Number(response.headers.get('retry-after') ?? 0) };
  };

  /** Whether the remote's main holds every accepted change's latest content, and what it misses. */
  const missing = async (): Promise<string[]> => {
    const listing = await git('ls-tree', '-r', 'main', 'clusters/prod');
    const blobs = new Map(
      listing
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [meta, path] = line.split('\t');
          return [path!, meta!.split(' ')[2]!] as const;
        }),
    );
    const wanted = [...expected].filter(([, rev]) => rev !== null);
    const contents = await catBlobs(
      remote,
      wanted.map(([path]) => blobs.get(path) ?? ''),
    );
    const lost: string[] = [];
    wanted.forEach(([path, rev], index) => {
      if (!contents[index]?.includes(rev!)) lost.push(path);
    });
    for (const [path, rev] of expected) if (rev === null && blobs.has(path)) lost.push(path);
    return lost;
  };

  // Git up: one batch publishes, so the outage starts on a running branch.
  const warm = await post();
  if (warm.status !== 202) throw new Error('the first batch was refused');
  for (let s = 0; s < 120 && (branch()?.pending.length !== 0 || branch()?.window); s++) await tick();
  if ((await missing()).length > 0) throw new Error('the first batch did not publish with Git up');
  const commitsBefore = await commits();

  for (const kind of ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'] as const)
    proxy.inject({ on: kind, fault: { kind: 'refuse' }, times: 100_000_000 });
  const seconds = Math.round(HOURS * 3600);
  const wallStarted = performance.now();
  let accepted = 0;
  const retryAfters: number[] = [];
  let budget:
    | {
        second: number;
        wallS: number;
        memory: ReturnType<typeof memory>;
        payloadBytes: number;
        storeBytes: number;
      }
    | undefined;
  let largestState = 0;
  const mb = (bytes: number) => bytes / 1e6;
  /** Takes (or logs the given) memory sample as it is taken, so a long run shows its progress. */
  const sample = (second: number, taken = memory()) => {
    console.log(
      `  memory at ${(second / 60).toFixed(1)} virtual min (${Math.round((performance.now() - wallStarted) / 1000)} s wall): RSS ${mb(taken.rss).toFixed(1)} MB, heap used ${mb(taken.heapUsed).toFixed(1)} MB (data ${mb(taken.heapData).toFixed(1)} MB)`,
    );
    return taken;
  };
  let offeredAfterBudget = 0;
  /** Memory an hour after the budget: every path of the outage (429s, capped retries) has run by then. */
  let settled: ReturnType<typeof memory> | undefined;
  for (let second = 0; second < seconds; second++) {
    if (budget && second === budget.second + SETTLE_S) settled = sample(second);
    if (second % STATE_EVERY_S === 0) largestState = Math.max(largestState, stateBytes());
    if (second % SAMPLE_EVERY_S === 0) sample(second);
    if (!budget || second % OFFER_EVERY_S === 0) {
      if (budget) offeredAfterBudget += 1;
      const answer = await post();
      if (answer.status === 202) accepted += RATE;
      else {
        retryAfters.push(answer.retryAfter);
        budget ??= {
          second,
          wallS: (performance.now() - wallStarted) / 1000,
          memory: sample(second),
          payloadBytes: folderBytes(join(dataDir, 'payloads')),
          storeBytes: storeBytes(),
        };
      }
    }
    await tick();
  }
  const end = sample(seconds);
  const outageWallS = (performance.now() - wallStarted) / 1000;
  const storeAtEnd = storeBytes();
  const storeFilesAtEnd = storeFileBytes();

  // Git returns: the clock moves a second at a time until everything accepted is on the remote.
  proxy.reset();
  const returnedWall = performance.now();
  const retryAt = branch()?.publication.retry?.retryAt;
  const retryDueS = retryAt === undefined ? 0 : Math.max(0, (Date.parse(retryAt) - clock.now()) / 1000);
  let drainS = 0;
  for (;;) {
    const state = branch();
    if (state && state.pending.length === 0 && !state.window && !state.publication.inFlight) {
      const lost = await missing();
      if (lost.length > 0)
        throw new Error(
          `nothing pending, yet ${lost.length} accepted paths are not on the remote: ${lost[0]}`,
        );
      break;
    }
    if (drainS >= DRAIN_LIMIT_S)
      throw new Error(`not published within ${DRAIN_LIMIT_S / 60} min of Git's return`);
    await tick();
    drainS += 1;
  }
  const drainWallS = (performance.now() - returnedWall) / 1000;
  const outageCommits = (await commits()) - commitsBefore;
  await host.stop();
  await served.stop();
  rmSync(dataDir, { recursive: true, force: true });

  const offered = (budget ? budget.second + 1 + offeredAfterBudget : seconds) * RATE;
  console.log(
    `outage: ${HOURS} virtual hours, ${RATE} changes each virtual second as one batch until the budget, then one batch every ${OFFER_EVERY_S} s (${MIX === 'mixed' ? '70% the same 1,000 ConfigMaps, 20% new Deployments, 10% deletes of those' : 'every change a new small ConfigMap'}); ${offered} changes offered, ${Math.round(outageWallS)} s wall`,
  );
  if (budget)
    console.log(
      `  wall: ${budget.wallS.toFixed(1)} s to the budget, ${(outageWallS - budget.wallS).toFixed(1)} s for the ${seconds - budget.second} virtual seconds after it`,
    );
  if (warnings.size > 0) console.log(`  warnings logged: ${JSON.stringify(Object.fromEntries(warnings))}`);
  if (!budget) {
    console.log('  the budget was never reached: no 429');
    report({ figure: 'outage: changes accepted', value: accepted, baseline: null, goal: '—', met: null });
    process.exit(process.exitCode ?? 0);
  }
  report({
    figure: `outage: changes accepted (of ${offered} offered) before the budget (${(budget.second / 60).toFixed(1)} virtual min)`,
    value: accepted,
    baseline: null,
    goal: '—',
    met: null,
  });
  report({
    figure: `outage: 429 answers (one a refused batch of ${RATE}); Retry-After median ${median(retryAfters)} s, max ${Math.max(...retryAfters)} s`,
    value: retryAfters.length,
    baseline: { what: 'batches offered from the budget on', value: offeredAfterBudget + 1 },
    goal: '1.00x (every one refused)',
    met: retryAfters.length === offeredAfterBudget + 1,
  });
  report({
    figure: 'outage: payload store at the budget (MB)',
    value: mb(budget.payloadBytes),
    baseline: null,
    goal: '—',
    met: null,
  });
  report({
    figure: `outage: embedded store (SQLite) after ${HOURS} h, pages in use (MB)`,
    value: mb(storeAtEnd),
    baseline: { what: 'at the budget', value: mb(budget.storeBytes) },
    goal: '<= 1.1x (flat)',
    met: storeAtEnd <= 1.1 * budget.storeBytes,
  });
  report({
    figure: `outage: embedded store's files (database and write-ahead log) after ${HOURS} h (MB)`,
    value: mb(storeFilesAtEnd),
    baseline: {
      what: 'the log at its checkpoint size (10,000 pages) and the pages in use',
      value: mb(WAL_CHECKPOINT_BYTES + storeAtEnd),
    },
    goal: '<= 1.1x (bounded)',
    met: storeFilesAtEnd <= 1.1 * (WAL_CHECKPOINT_BYTES + storeAtEnd),
  });
  report({
    figure: `outage: largest branch entity state, sampled every ${STATE_EVERY_S} virtual s (MB)`,
    value: mb(largestState),
    baseline: null,
    goal: '<= 1 MB',
    met: largestState <= 1_000_000,
  });
  report({
    figure: `outage: host RSS after ${HOURS} h (MB)`,
    value: mb(end.rss),
    baseline: { what: 'at the budget', value: mb(budget.memory.rss) },
    goal: '<= 1.1x (flat)',
    met: end.rss <= 1.1 * budget.memory.rss,
  });
  report({
    figure: `outage: V8 heap used less compiled code after ${HOURS} h (MB)`,
    value: mb(end.heapData),
    baseline: { what: 'at the budget', value: mb(budget.memory.heapData) },
    goal: '<= 1.1x (flat)',
    met: end.heapData <= 1.1 * budget.memory.heapData,
  });
  if (settled) {
    report({
      figure: `outage: V8 heap used (compiled code too) after ${HOURS} h (MB)`,
      value: mb(end.heapUsed),
      baseline: { what: 'an hour after the budget', value: mb(settled.heapUsed) },
      goal: '<= 1.05x (no growth once warm)',
      met: end.heapUsed <= 1.05 * settled.heapUsed,
    });
  }
  report({
    figure: `outage: virtual minutes from Git's return to all ${expected.size} accepted paths published (${drainWallS.toFixed(1)} s wall; the next retry was due ${Math.round(retryDueS)} s after Git's return)`,
    value: drainS / 60,
    baseline: { what: 'retry.max', value: 5 },
    goal: '—',
    met: null,
  });
  report({
    figure: 'outage: commits that published the outage',
    value: outageCommits,
    baseline: null,
    goal: '—',
    met: null,
  });
  process.exit(process.exitCode ?? 0);
}

/** The contents of blobs (an empty id reads as missing), through one `git cat-file --batch`. */
async function catBlobs(gitDir: string, ids: string[]): Promise<(string | undefined)[]> {
  const child = execFile('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch'], {
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git cat-file exited ${code}`))));
  });
  child.stdin!.end(`${ids.map((id) => (id === '' ? 'missing' : id)).join('\n')}\n`);
  await done;
  const out = Buffer.concat(chunks);
  const contents: (string | undefined)[] = [];
  let at = 0;
  for (let i = 0; i < ids.length; i++) {
    const newline = out.indexOf(10, at);
    const header = out.subarray(at, newline).toString();
    at = newline + 1;
    if (header.endsWith(' missing')) {
      contents.push(undefined);
      continue;
    }
    const size = Number(header.split(' ')[2]);
    contents.push(out.subarray(at, at + size).toString());
    at += size + 1;
  }
  return contents;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
