/**
 * Cold start (`npm run bench -- cold-start`), each figure the median of COLD_START_RUNS (default 5)
 * fresh processes, alternated with its baseline so that both see the same machine load:
 * 1. Import time of the HTTP path alone (the compiled HTTP triggers, functions/http/routes.js), as
 *    a ratio to importing the framework it cannot do without (@azure/functions, durable-functions,
 *    zod). Goal ≤ 300 ms.
 * 2. Process start to the first answered request (GET /api/healthz) and to the first accepted
 *    change (its runtime built), for `npm start`'s launcher, as a ratio to a bare node:http server
 *    process answering.
 * 3. The Azure package's cold load on the deployed Node: `npm run package`'s zip, unpacked, loaded
 *    the way the Functions Node worker loads an app until every function is registered
 *    (tests/support/functions-worker-load.ts), as a ratio to the same load of the unbundled app
 *    (dist/ and node_modules, what the zip held before it was bundled). Goal ≤ 1 s.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ensureNodeRuntime } from '../../infra/node-runtime';
import { loadAsFunctionsWorker } from '../support/functions-worker-load';
import { median, report } from './figures';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const RUNS = Number(process.env.COLD_START_RUNS ?? 5);

/** Milliseconds (wall and CPU) a fresh node process takes to require `modules` (from `cwd`). */
async function importMs(cwd: string, modules: string[]): Promise<{ wall: number; cpu: number }> {
  const script = `const t = performance.now(); const c = process.cpuUsage(); for (const m of ${JSON.stringify(modules)}) require(m); const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd });
  return JSON.parse(stdout) as { wall: number; cpu: number };
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

interface Started {
  healthz: number;
  change: number | null;
  /** CPU ms the process used until its first answer: steadier than wall time on a busy machine. */
  cpu: number;
}

let nextPort = 17_300 + Math.floor(Math.random() * 1000);

/** Starts `args` in `cwd`; ms from spawn to a 200 on /api/healthz and to an accepted change. */
async function startToAnswer(cwd: string, args: string[], change: boolean): Promise<Started> {
  const port = nextPort++;
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-bench-cold-'));
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, PORT: String(port), KUBESCRIBE_DATA: dataDir, KUBESCRIBE_CONFIG: '' },
    stdio: 'ignore',
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    let healthz: number | null = null;
    let cpu = Number.NaN;
    while (healthz === null) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}`);
      if (performance.now() - started > 30_000) throw new Error(`${args.join(' ')}: no answer in 30 s`);
      const answered = await fetch(`${url}/api/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (answered) {
        healthz = performance.now() - started;
        cpu = cpuMsOf(child.pid!);
      } else await sleep(5);
    }
    if (!change) return { healthz, change: null, cpu };
    const response = await fetch(`${url}/api/v1/targets/local/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          {
            type: 'ADDED',
            resource: 'configmaps',
            object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cold', namespace: 'default' } },
          },
        ],
      }),
    });
    if (response.status !== 202) throw new Error(`first change: ${response.status} ${await response.text()}`);
    return { healthz, change: performance.now() - started, cpu };
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const BARE_SERVER = [
  '-e',
  `require('node:http').createServer((q, s) => s.end('{"status":"ok"}')).listen(Number(process.env.PORT), '127.0.0.1')`,
];

async function main(): Promise<void> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT, maxBuffer: 1 << 26 });
  await run('npm', ['run', 'package', '--silent'], { cwd: ROOT, maxBuffer: 1 << 26 });
  const packaged = mkdtempSync(join(tmpdir(), 'ks-bench-package-'));
  await run('unzip', ['-q', join(ROOT, '.tmp', 'kubescribe.zip'), '-d', packaged]);
  const { node } = ensureNodeRuntime();

  const http: { wall: number; cpu: number }[] = [];
  const framework: { wall: number; cpu: number }[] = [];
  const bare: Started[] = [];
  const launcher: Started[] = [];
  const bundled: { wall: number; cpu: number }[] = [];
  const unbundled: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    framework.push(await importMs(ROOT, ['@azure/functions', 'durable-functions', 'zod']));
    http.push(await importMs(ROOT, ['./dist/functions/http/routes.js']));
    bare.push(await startToAnswer(ROOT, BARE_SERVER, false));
    launcher.push(await startToAnswer(ROOT, ['dist/functions/local/start.js'], true));
    for (const [runs, load] of [
      [bundled, loadAsFunctionsWorker({ node, app: packaged })],
      [unbundled, loadAsFunctionsWorker({ node, app: ROOT, entry: 'dist/functions/index.js' })],
    ] as const) {
      const { loadMs, cpuMs } = await load;
      runs.push({ wall: loadMs, cpu: cpuMs });
    }
  }
  rmSync(packaged, { recursive: true, force: true });

  const httpMs = median(http.map((r) => r.wall));
  const httpCpu = median(http.map((r) => r.cpu));
  report({
    figure: 'HTTP path import (ms)',
    value: httpMs,
    baseline: { what: 'framework import', value: median(framework.map((r) => r.wall)) },
    goal: '<= 300 ms',
    met: httpMs <= 300,
  });
  report({
    figure: 'HTTP path import, CPU (ms)',
    value: httpCpu,
    baseline: { what: 'framework import, CPU', value: median(framework.map((r) => r.cpu)) },
    goal: '<= 300 ms',
    met: httpCpu <= 300,
  });
  const baseline = { what: 'bare node:http process', value: median(bare.map((r) => r.healthz)) };
  const cpuBaseline = { what: 'bare node:http process, CPU', value: median(bare.map((r) => r.cpu)) };
  report({
    figure: 'npm start: start to first answer (ms)',
    value: median(launcher.map((r) => r.healthz)),
    baseline,
    goal: '—',
    met: null,
  });
  report({
    figure: 'npm start: start to first answer, CPU (ms)',
    value: median(launcher.map((r) => r.cpu)),
    baseline: cpuBaseline,
    goal: '—',
    met: null,
  });
  report({
    figure: 'npm start: start to first accepted change (ms)',
    value: median(launcher.map((r) => r.change!)),
    baseline,
    goal: '—',
    met: null,
  });
  for (const measure of ['wall', 'cpu'] as const) {
    const value = median(bundled.map((r) => r[measure]));
    report({
      figure: `Azure package: cold load to every function registered${measure === 'cpu' ? ', CPU' : ''} (ms)`,
      value,
      baseline: {
        what: `unbundled app (dist/ + node_modules)${measure === 'cpu' ? ', CPU' : ''}`,
        value: median(unbundled.map((r) => r[measure])),
      },
      goal: '<= 1000 ms',
      met: value <= 1000,
    });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
