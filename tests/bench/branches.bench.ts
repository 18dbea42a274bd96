/**
 * Many branches (`npm run bench -- branches`): 50 targets over 10 branches on 3 repositories, each
 * repository served by a real `git http-backend` behind its own fault proxy, the app on the embedded
 * host as `npm start` runs it (compiled, activities on one thread, the project's host.json and so its
 * 4 activity slots), 1 s idle windows. Each round posts one change to a target of every branch at
 * once and times each change until its branch's ref on the remote moves (change-to-pushed latency
 * per branch). Then the same rounds with one repository stalled (every Git request to it hangs until
 * kubescribe's call bound): the other repositories' branches' p99 latency as a ratio to theirs with
 * every remote healthy (goal ≤ 1.1×, a stalled remote must not hold back the others). BRANCH_ROUNDS
 * (default 10) sets the rounds.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { GitRequestKind } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';
import { startCompiledApp } from './compiled-app';
import { percentile, report } from './figures';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const REPOSITORIES = 3;
const BRANCHES = 10;
const TARGETS = 50;
const ROUNDS = Number(process.env.BRANCH_ROUNDS ?? 10);
const KINDS: GitRequestKind[] = ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'];

/** The commit a bare repository's branch points at (loose ref, else packed). */
function refOf(gitdir: string, branch: string): string {
  try {
    return readFileSync(join(gitdir, 'refs', 'heads', branch), 'utf8').trim();
  } catch {
    const packed = readFileSync(join(gitdir, 'packed-refs'), 'utf8');
    return (
      packed
        .split('\n')
        .find((line) => line.endsWith(` refs/heads/${branch}`))
        ?.slice(0, 40) ?? ''
    );
  }
}

async function main(): Promise<void> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  const remotes: ProxiedRemote[] = [];
  for (let r = 0; r < REPOSITORIES; r++) remotes.push(await startProxiedRemote({ name: `state-${r}.git` }));
  const branches = Array.from({ length: BRANCHES }, (_, b) => ({
    name: `b${b}`,
    repository: b % REPOSITORIES,
  }));
  for (const branch of branches) {
    await run('git', [`--git-dir=${remotes[branch.repository]!.remote}`, 'branch', branch.name, 'main']);
  }
  const targets = Array.from({ length: TARGETS }, (_, t) => ({
    name: `t${t}`,
    branch: branches[t % BRANCHES]!,
  }));
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-branches-'));
  const host = await startCompiledApp({
    dataDir,
    logger: () => {},
    // the project's host.json, as `npm start` and the Functions host read it: its activity slots
    hostJson: join(ROOT, 'host.json'),
    config: {
      repositories: remotes.map((remote, r) => ({ name: `r${r}`, url: remote.url })),
      targets: targets.map((target) => ({
        name: target.name,
        repository: `r${target.branch.repository}`,
        branch: target.branch.name,
        path: target.name,
        window: { idleTimeout: '1s', maxDuration: '1m' },
      })),
      limits: { pushCooldown: '0s', gitCallTimeout: '10s', publishTimeout: '1m' },
      server: { auth: 'disabled' },
    },
  });
  let sequence = 0;
  const change = async (target: (typeof targets)[number]): Promise<number> => {
    const gitdir = remotes[target.branch.repository]!.remote;
    const before = refOf(gitdir, target.branch.name);
    const name = `cm-${sequence++}`;
    const sent = performance.now();
    const response = await fetch(`${host.url}/api/v1/targets/${target.name}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          {
            type: 'ADDED',
            resource: 'configmaps',
            object: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name, namespace: 'bench' },
              data: { n: name },
            },
          },
        ],
      }),
    });
    if (response.status !== 202)
      throw new Error(`${target.name}: ${response.status} ${await response.text()}`);
    while (refOf(gitdir, target.branch.name) === before) {
      if (performance.now() - sent > 120_000) throw new Error(`${target.name}: not pushed within 2 min`);
      await sleep(20);
    }
    return performance.now() - sent;
  };
  /** `ROUNDS` rounds of one change per branch (its targets in turn); latencies of the healthy repositories' branches. */
  const rounds = async (healthy: (repository: number) => boolean) => {
    const latencies: number[] = [];
    let changes = 0;
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      const picked = branches
        .map((_, b) => targets[(round * BRANCHES + b) % TARGETS]!)
        .filter((target) => healthy(target.branch.repository));
      const measured = await Promise.all(picked.map(change));
      latencies.push(...measured);
      changes += measured.length;
    }
    return {
      latencies: latencies.sort((a, b) => a - b),
      perSecond: changes / ((performance.now() - started) / 1000),
    };
  };

  // warm-up: every branch publishes once
  await Promise.all(branches.map((_, b) => change(targets[b]!)));
  const others = (repository: number) => repository !== 0;
  const healthy = await rounds(others);
  for (const kind of KINDS)
    remotes[0]!.proxy.inject({ on: kind, fault: { kind: 'stall' }, times: 1_000_000 });
  // the stalled repository's branches keep receiving changes meanwhile: only posted, never awaited
  for (const target of targets.filter((t) => t.branch.repository === 0)) {
    change(target).catch(() => {});
  }
  const stalled = await rounds(others);
  await host.stop();
  for (const remote of remotes) await remote.stop();
  rmSync(dataDir, { recursive: true, force: true });

  console.log(
    `branches: ${TARGETS} targets over ${BRANCHES} branches on ${REPOSITORIES} repositories, ${ROUNDS} rounds; ${healthy.latencies.length} changes measured per phase on the ${branches.filter((b) => others(b.repository)).length} branches of the repositories kept healthy`,
  );
  const p99 = (l: number[]) => percentile(l, 99);
  report({
    figure: 'many branches: changes pushed per second (one change per branch at a time)',
    value: healthy.perSecond,
    baseline: null,
    goal: '—',
    met: null,
  });
  report({
    figure: 'many branches: change-to-pushed p99, 1 s idle window (ms)',
    value: p99(healthy.latencies),
    baseline: { what: 'idle window', value: 1000 },
    goal: '—',
    met: null,
  });
  report({
    figure: 'many branches: p99 of the others with one repository stalled (ms)',
    value: p99(stalled.latencies),
    baseline: { what: 'same, every remote healthy', value: p99(healthy.latencies) },
    goal: '<= 1.1x',
    met: p99(stalled.latencies) <= 1.1 * p99(healthy.latencies),
  });
  process.exit(process.exitCode ?? 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
