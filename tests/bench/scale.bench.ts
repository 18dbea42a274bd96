/**
 * A real cluster's size (`npm run bench -- scale`): SCALE_OBJECTS objects (default 100,000) across
 * 200 namespaces and 30 resource types, delivered as the forwarder delivers a resync (parts of 500
 * objects, then `complete` naming the part count; `snapshot-post.ts`, in a process of its own as
 * the forwarder is) into an empty repository, then again with 1% of the objects changed. The real app on the embedded host as `npm start` runs it (compiled, SQLite,
 * a local bare repository, activities on one thread). For each snapshot:
 * - time from the first part posted to the remote branch holding the commit, as a ratio to a dump
 *   tool resyncing the same objects (`dump-tool.ts`: katafygio's or kube-dump's way, every file
 *   written into a working tree, `git add -A`, `git commit`, `git push` to a bare repository over
 *   the same local transport; its tree must be kubescribe's), goal <= 1.5x for the first snapshot
 *   and <= 1x for the 1% one; and, for reference, to `git` alone writing the same tree:
 *   `git fast-import` of that commit (exported by `git fast-export`, so the tree is byte for byte
 *   the same) and `git push` to an empty bare repository;
 * - the host's peak RSS (goal <= 400 MB) and the branch entity's largest serialized state meanwhile
 *   (goal ≤ 1 MB at every point, the Durable Task Scheduler's entity limit), sampled every SAMPLE_MS;
 * - the payload store's bytes once published.
 * Then, on that repository, a steady stream of changes (`stream-load.ts`, in a process of its own):
 * STREAM_RATE watch events a second (default 20), one per post, modifying existing objects and
 * adding new ones across the namespaces, STREAM_SAMPLES of them (default 200). The target's window
 * is 1 s (idle and maximum: a steady stream never goes idle, so its maximum closes it). Each
 * change's latency runs from its scheduled send until the remote branch's head holds it: p50 and
 * p99 against the window (goal p99 <= window + 0.5 s), the host's peak RSS meanwhile, and the
 * publish activity's mean time (from the host's metrics). The stream runs twice: on the local
 * bare repository, then through smart HTTP (`git http-backend` serving the same repository, a
 * second target on it; its first change, which fetches the branch into a cold cache, is timed
 * on its own). Each stream's mean publication is set beside `git push` of a commit of as many
 * changed files to the same destination.
 * SCALE_OBJECTS=5000 runs it in about a minute.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type * as BranchKeys from '../../shared/app/runtime/branch-key';
import { readLocalRef } from '../../shared/git/read-local-ref';
import { startGitServer } from '../support/git/start-git-server';
import { clusterObject, clusterObjectPath, NAMESPACES, TYPES } from './cluster-objects';
import { startCompiledApp } from './compiled-app';
import { median, percentile, report } from './figures';
import { folderBytes } from './folder-bytes';

const run = promisify(execFile);
const OBJECTS = Number(process.env.SCALE_OBJECTS ?? 100_000);
const PART_OBJECTS = 500;
const SAMPLE_MS = Number(process.env.SAMPLE_MS ?? 250);
const STATE_LIMIT = 1_000_000;
const RSS_GOAL_MB = 400;
const STREAM_SAMPLES = Number(process.env.STREAM_SAMPLES ?? 200);
const STREAM_RATE = Number(process.env.STREAM_RATE ?? 20);
const WINDOW_MS = 1000;
const BASELINE_PUSHES = 5;
const TARGET_PATH = 'clusters/prod';
const ROOT = join(__dirname, '..', '..');

async function git(...args: string[]): Promise<string> {
  return (await run('git', args, { maxBuffer: 1 << 30 })).stdout.trim();
}

async function main(): Promise<void> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  const { branchKeyFor } = require(
    join(ROOT, 'dist', 'shared', 'app', 'runtime', 'branch-key.js'),
  ) as typeof BranchKeys;
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-scale-'));
  const remote = join(dataDir, 'state.git');
  await git('init', '-q', '--bare', '-b', 'main', remote);
  // the same repository served by `git http-backend`, for the stream through smart HTTP
  const server = await startGitServer({ root: dataDir });
  const httpRemote = `${server.url}/state.git`;
  const window = { idleTimeout: `${WINDOW_MS / 1000}s`, maxDuration: `${WINDOW_MS / 1000}s` };
  const host = await startCompiledApp({
    dataDir,
    config: {
      repositories: [
        { name: 'state', url: remote },
        { name: 'state-http', url: httpRemote },
      ],
      targets: [
        {
          name: 'cluster',
          repository: 'state',
          branch: 'main',
          path: TARGET_PATH,
          prune: 'Always',
          // snapshots commit without a window; the stream's changes wait for this one
          window,
        },
        { name: 'cluster-http', repository: 'state-http', branch: 'main', path: TARGET_PATH, window },
      ],
      // a whole cluster's snapshot is held before it publishes: a budget that fits it
      limits: { pushCooldown: '0s', branchBufferBytes: '1Gi', queueItems: 1_000_000 },
      server: { auth: 'disabled' },
    },
  });
  const branchKey = branchKeyFor(remote, 'main').key;
  const httpBranchKey = branchKeyFor(httpRemote, 'main').key;
  let sampledKey = branchKey;
  let peakRss = 0;
  let peakState = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const state = host.client.readEntityState('branch', sampledKey);
    if (state.exists) peakState = Math.max(peakState, JSON.stringify(state.state).length);
  }, SAMPLE_MS);

  // read as git's files backend stores the ref, not by spawning `git` every 50 ms: forking a process
  // of this one's size takes tens of milliseconds of the main thread the host is measured on
  const head = async () => (await readLocalRef({ gitdir: remote, ref: 'refs/heads/main' })) ?? '';

  /**
   * Posts the snapshot in parts and completes it (snapshot-post.ts, a process of its own, as the
   * forwarder is), and waits for its commit on the remote.
   */
  const snapshot = async (id: string, changedEvery: number) => {
    const before = await head();
    peakRss = 0;
    peakState = 0;
    const posting = run(process.execPath, [
      '--import',
      'tsx',
      join(__dirname, 'snapshot-post.ts'),
      `${host.url}/api/v1/targets/cluster`,
      id,
      String(OBJECTS),
      String(changedEvery),
    ]);
    let commit = before;
    const waitStarted = Date.now();
    while (commit === before) {
      if (Date.now() - waitStarted > 60 * 60_000) throw new Error(`snapshot ${id} not pushed within an hour`);
      await sleep(50);
      commit = await head();
    }
    const pushedAt = Date.now();
    const { startedAt, postedAt } = JSON.parse((await posting).stdout) as {
      startedAt: number;
      postedAt: number;
    };
    return { ms: pushedAt - startedAt, posted: postedAt - startedAt, commit, peakRss, peakState };
  };

  // Baseline: git writing the same commit, fast-import then push, run as soon as kubescribe pushed it.
  const work = join(dataDir, 'baseline.git');
  const target = join(dataDir, 'baseline-remote.git');
  await git('init', '-q', '--bare', '-b', 'main', work);
  await git('init', '-q', '--bare', '-b', 'main', target);
  const gitWrites = async (commit: string, ref: string, parent: string | null) => {
    await git(`--git-dir=${remote}`, 'branch', ref, commit);
    const range = parent ? [`${parent}..${ref}`, '--reference-excluded-parents'] : [ref];
    const stream = join(dataDir, 'stream');
    const exported = await run('git', [`--git-dir=${remote}`, 'fast-export', ...range], {
      maxBuffer: 1 << 30,
    });
    writeFileSync(stream, exported.stdout);
    const started = performance.now();
    await run('sh', ['-c', `git --git-dir="${work}" fast-import --quiet < "${stream}"`]);
    await git(`--git-dir=${work}`, 'push', '-q', target, `refs/heads/${ref}:refs/heads/main`);
    const ms = performance.now() - started;
    if ((await git(`--git-dir=${target}`, 'rev-parse', 'main')) !== commit) {
      throw new Error('the baseline did not write the same commit');
    }
    return ms;
  };
  // Baseline: a dump tool resyncing the same objects, in a process of its own (dump-tool.ts)
  const dumpTree = join(dataDir, 'dump-tool');
  const dumpRemote = join(dataDir, 'dump-remote.git');
  await git('init', '-q', '--bare', '-b', 'main', dumpRemote);
  const dumpTool = async (commit: string) => {
    const dumped = await run(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'dump-tool.ts'), remote, commit, dumpTree, dumpRemote],
      { maxBuffer: 1 << 20 },
    );
    const result = JSON.parse(dumped.stdout) as {
      ms: number;
      writeMs: number;
      addMs: number;
      commitMs: number;
      pushMs: number;
      tree: string;
    };
    if (result.tree !== (await git(`--git-dir=${remote}`, 'rev-parse', `${commit}^{tree}`)))
      throw new Error('the dump tool did not write the same tree');
    console.log(
      `  dump tool: files written in ${Math.round(result.writeMs)} ms, git add -A ${Math.round(result.addMs)} ms, ` +
        `git commit ${Math.round(result.commitMs)} ms, git push ${Math.round(result.pushMs)} ms`,
    );
    return result.ms;
  };
  const mb = (bytes: number) => bytes / 1e6;
  const reportPhase = (
    name: string,
    result: Awaited<ReturnType<typeof snapshot>>,
    baselines: { dumpTool: number; gitAlone: number },
    goal: number,
  ) => {
    console.log(`  ${name}: parts posted in ${Math.round(result.posted)} ms`);
    report({
      figure: `${OBJECTS} objects, ${name}: to pushed commit (ms)`,
      value: result.ms,
      baseline: { what: 'a dump tool (write files, git add -A, commit, push)', value: baselines.dumpTool },
      goal: `<= ${goal}x a dump tool`,
      met: result.ms <= goal * baselines.dumpTool,
    });
    report({
      figure: `${OBJECTS} objects, ${name}: to pushed commit, beside git alone (ms)`,
      value: result.ms,
      baseline: { what: 'git fast-import + push', value: baselines.gitAlone },
      goal: '—',
      met: null,
    });
    report({
      figure: `${OBJECTS} objects, ${name}: host peak RSS (MB)`,
      value: mb(result.peakRss),
      baseline: null,
      goal: `<= ${RSS_GOAL_MB} MB`,
      met: mb(result.peakRss) <= RSS_GOAL_MB,
    });
    report({
      figure: `${OBJECTS} objects, ${name}: largest entity state (MB)`,
      value: mb(result.peakState),
      baseline: null,
      goal: '<= 1 MB',
      met: result.peakState <= STATE_LIMIT,
    });
  };

  console.log(
    `scale: ${OBJECTS} objects in ${Math.ceil(OBJECTS / PART_OBJECTS)} parts of ${PART_OBJECTS}, ${NAMESPACES} namespaces, ${TYPES} resource types; then 1% of them changed`,
  );
  const first = await snapshot('full', 0);
  reportPhase(
    'snapshot into an empty repository',
    first,
    { gitAlone: await gitWrites(first.commit, 'first', null), dumpTool: await dumpTool(first.commit) },
    1.5,
  );
  const second = await snapshot('one-percent', 100);
  reportPhase(
    'snapshot with 1% changed',
    second,
    { gitAlone: await gitWrites(second.commit, 'second', 'first'), dumpTool: await dumpTool(second.commit) },
    1,
  );
  await host.waitForIdle();
  report({
    figure: `${OBJECTS} objects: payload store after both (MB)`,
    value: mb(folderBytes(join(dataDir, 'payloads'))),
    baseline: null,
    goal: '—',
    met: null,
  });

  const load = () =>
    loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
  /** The publish activity's runs and seconds so far, from the host's metrics. */
  const publishActivity = async () => {
    const text = await (await fetch(`${host.url}/metrics`)).text();
    const value = (name: string) =>
      Number(new RegExp(`^${name}\\{activity="publish",outcome="ok"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      runs: value('kubescribe_activity_duration_seconds_count'),
      seconds: value('kubescribe_activity_duration_seconds_sum'),
    };
  };
  /** Runs `samples` changes of the stream from change `first` on through `target`; its latencies. */
  const streamThrough = async (target: string, first: number, samples: number) => {
    const streamed = await run(process.execPath, [
      '--import',
      'tsx',
      join(__dirname, 'stream-load.ts'),
      `${host.url}/api/v1/targets/${target}/events`,
      remote,
      TARGET_PATH,
      String(OBJECTS),
      String(first),
      String(samples),
      String(STREAM_RATE),
    ]);
    return JSON.parse(streamed.stdout) as {
      latencies: number[];
      afterAnswer: number[];
      heads: number;
      answeredMaxMs: number;
      inFlightMax: number;
    };
  };
  /** The stream through `target` (its branch entity sampled), reported under `remoteKind`. */
  const streamPhase = async (target: string, key: string, first: number, remoteKind: string) => {
    const loadBefore = load();
    const publishedBefore = await publishActivity();
    sampledKey = key;
    peakRss = 0;
    peakState = 0;
    const stream = await streamThrough(target, first, STREAM_SAMPLES);
    const rss = peakRss;
    const state = peakState;
    const published = await publishActivity();
    const runs = published.runs - publishedBefore.runs;
    const publishMs = ((published.seconds - publishedBefore.seconds) / runs) * 1000;
    console.log(
      `  stream (${remoteKind}): ${STREAM_SAMPLES} changes at ${STREAM_RATE}/s, ${stream.heads} heads seen on the remote, ` +
        `${runs} publications of ${Math.round(publishMs)} ms on average, ` +
        `from the answer to pushed p50 ${Math.round(percentile(stream.afterAnswer, 50))} ms p99 ${Math.round(percentile(stream.afterAnswer, 99))} ms, ` +
        `slowest answer to a post ${Math.round(stream.answeredMaxMs)} ms, at most ${stream.inFlightMax} posts in flight; ` +
        `load average ${loadBefore} before, ${load()} after`,
    );
    const figure = `${OBJECTS} objects, a stream of ${STREAM_RATE} changes/s, ${WINDOW_MS / 1000} s window, ${remoteKind}`;
    report({
      figure: `${figure}: change-to-pushed latency p50 (ms)`,
      value: percentile(stream.latencies, 50),
      baseline: null,
      goal: '—',
      met: null,
    });
    const p99 = percentile(stream.latencies, 99);
    report({
      figure: `${figure}: change-to-pushed latency p99 of ${STREAM_SAMPLES} (ms)`,
      value: p99,
      baseline: { what: 'window', value: WINDOW_MS },
      goal: `<= ${WINDOW_MS + 500} ms (window + 0.5 s)`,
      met: p99 <= WINDOW_MS + 500,
    });
    report({ figure: `${figure}: host peak RSS (MB)`, value: mb(rss), baseline: null, goal: '—', met: null });
    report({
      figure: `${figure}: largest entity state (MB)`,
      value: mb(state),
      baseline: null,
      goal: '<= 1 MB',
      met: state <= STATE_LIMIT,
    });
    return { publishMs, changesPerPublication: Math.max(1, Math.round(STREAM_SAMPLES / runs)) };
  };

  // Baseline of a publication: git pushing a commit of as many changed files (three in four
  // modified, one in four new, as the stream's) to the same server, on the same tree (the baseline
  // repository holds the second snapshot's commit); the median of BASELINE_PUSHES.
  let baselineHead = second.commit;
  let baselineChange = 0;
  const gitPushes = async (destination: string, files: number) => {
    const times: number[] = [];
    for (let push = 0; push < BASELINE_PUSHES; push++) {
      const lines = [
        'commit refs/heads/main',
        'committer Bench <bench@example.com> 1764633600 +0000',
        'data 4',
        'push',
        `from ${baselineHead}`,
      ];
      for (let f = 0; f < files; f++, baselineChange++) {
        const i = baselineChange % 4 === 0 ? 2 * OBJECTS + baselineChange : (baselineChange * 7919) % OBJECTS;
        const content = `${JSON.stringify(clusterObject(i, 3, baselineChange), null, 2)}\n`;
        lines.push(
          `M 100644 inline ${TARGET_PATH}/${clusterObjectPath(i)}`,
          `data ${Buffer.byteLength(content)}`,
          content,
        );
      }
      const stream = join(dataDir, 'push-stream');
      writeFileSync(stream, `${lines.join('\n')}\n`);
      await run('sh', ['-c', `git --git-dir="${work}" fast-import --quiet < "${stream}"`]);
      baselineHead = await git(`--git-dir=${work}`, 'rev-parse', 'main');
      const started = performance.now();
      await git(`--git-dir=${work}`, 'push', '-q', destination, 'main:main');
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const publicationFigure = (remoteKind: string, publishMs: number, files: number, pushMs: number) =>
    report({
      figure: `${OBJECTS} objects, ${remoteKind}: publication during the stream, mean (ms)`,
      value: publishMs,
      baseline: { what: `git push of a ${files}-file commit, median of ${BASELINE_PUSHES}`, value: pushMs },
      goal: '—',
      met: null,
    });

  const local = await streamPhase('cluster', branchKey, 0, 'local bare repository');
  publicationFigure(
    'local bare repository',
    local.publishMs,
    local.changesPerPublication,
    await gitPushes(target, local.changesPerPublication),
  );
  // The same branch through smart HTTP, as a hosted remote is reached: its first change fetches
  // the branch into a cold cache (timed on its own), the stream then runs on a warm one.
  const warmup = await streamThrough('cluster-http', STREAM_SAMPLES, 1);
  report({
    figure: `${OBJECTS} objects, smart HTTP: first change to pushed, cold cache (ms)`,
    value: warmup.latencies[0]!,
    baseline: null,
    goal: '—',
    met: null,
  });
  const overHttp = await streamPhase('cluster-http', httpBranchKey, STREAM_SAMPLES + 1, 'smart HTTP');
  publicationFigure(
    'smart HTTP',
    overHttp.publishMs,
    overHttp.changesPerPublication,
    await gitPushes(`${server.url}/baseline-remote.git`, overHttp.changesPerPublication),
  );
  clearInterval(sampler);
  await host.stop();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
