/**
 * Metrics cost benchmark (`npm run bench -- metrics`): the ingest rate with metrics on, as a ratio
 * to metrics off (`KUBESCRIBE_METRICS=off`) in the same run (goal ≥ 0.97). Each mode runs the
 * built app in a process of its own (`metrics-host.ts`), alternating on and off over ROUNDS
 * rounds (default 3) so that the machine's other load falls on both; each round posts
 * METRICS_BATCHES audit EventLists of 400 events (default 40) with 4 clients (`ingest-load.ts`).
 * Reported: the median rates and their ratio, and the host's CPU time per 1,000 events (steadier
 * than the rate on a shared machine). With metrics on, `/metrics` must count every accepted event.
 */
import { execFile, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCHES = Number(process.env.METRICS_BATCHES ?? 40);
const BATCH_SIZE = 400;
const CLIENTS = 4;

type Mode = 'on' | 'off';
type Cpu = { user: number; system: number };

async function round(mode: Mode): Promise<{ rate: number; cpuMsPer1000: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), `ks-bench-metrics-${mode}-`));
  const remote = join(dataDir, 'state.git');
  await run('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  const configFile = join(dataDir, 'kubescribe.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      repositories: [{ name: 'state', url: remote }],
      targets: [{ name: 'bulk', repository: 'state', branch: 'main', path: '.' }],
      server: { auth: 'disabled' },
    }),
  );
  const child = fork(join(__dirname, 'metrics-host.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      KUBESCRIBE_CONFIG: configFile,
      KUBESCRIBE_DATA: dataDir,
      KUBESCRIBE_GIT_CACHE: join(dataDir, 'cache'),
      KUBESCRIBE_METRICS: mode,
      LOG_LEVEL: 'warn',
    },
  });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (!(key in message)) return;
        child.off('message', onMessage);
        resolve(message[key] as T);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the ${mode} host exited with ${code}`)));
    });
  try {
    const url = await next<string>('url');
    // warm-up: the first request builds the runtime and starts the driver
    await run(process.execPath, [
      '--import',
      'tsx',
      join(__dirname, 'ingest-load.ts'),
      `${url}/api/v1/targets/bulk/audit`,
      '1',
      '10',
      '1',
    ]);
    const cpuAsked = next<Cpu>('cpu');
    child.send('cpu');
    const cpuBefore = await cpuAsked;
    const load = await run(process.execPath, [
      '--import',
      'tsx',
      join(__dirname, 'ingest-load.ts'),
      `${url}/api/v1/targets/bulk/audit`,
      String(BATCHES),
      String(BATCH_SIZE),
      String(CLIENTS),
    ]);
    const cpuAfterAsked = next<Cpu>('cpu');
    child.send('cpu');
    const cpuAfter = await cpuAfterAsked;
    const { accepted, seconds } = JSON.parse(load.stdout) as { accepted: number; seconds: number };
    const scraped = await fetch(`${url}/metrics`);
    if (mode === 'on') {
      const counted = sampleValue(
        parsePrometheusText(await scraped.text()),
        'kubescribe_events_accepted_total',
        {
          target: 'bulk',
          intake: 'audit',
        },
      );
      if (counted !== accepted + 10)
        throw new Error(`/metrics counted ${counted} accepted events, not ${accepted + 10}`);
    } else if (scraped.status !== 404)
      throw new Error(`metrics off, yet /metrics answered ${scraped.status}`);
    const cpuMs = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1000;
    return { rate: accepted / seconds, cpuMsPer1000: (cpuMs / accepted) * 1000 };
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  const results: Record<Mode, { rate: number; cpuMsPer1000: number }[]> = { on: [], off: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // alternate which mode goes first, so neither always runs on a warmer machine
    const order: Mode[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const mode of order) {
      const result = await round(mode);
      results[mode].push(result);
      console.log(
        `round ${r + 1} metrics ${mode}: ${Math.round(result.rate)} events/s, ${result.cpuMsPer1000.toFixed(1)} ms CPU per 1,000 events`,
      );
    }
  }
  const rateOn = median(results.on.map((r) => r.rate));
  const rateOff = median(results.off.map((r) => r.rate));
  const cpuOn = median(results.on.map((r) => r.cpuMsPer1000));
  const cpuOff = median(results.off.map((r) => r.cpuMsPer1000));
  const ratio = rateOn / rateOff;
  console.log(`ingest with metrics on: ${Math.round(rateOn)} events/s; off: ${Math.round(rateOff)} events/s`);
  console.log(`ratio on/off: ${ratio.toFixed(3)} (goal ≥ 0.97) ${ratio >= 0.97 ? 'OK' : 'BELOW GOAL'}`);
  console.log(
    `host CPU per 1,000 events: on ${cpuOn.toFixed(1)} ms, off ${cpuOff.toFixed(1)} ms (off/on ${(cpuOff / cpuOn).toFixed(3)})`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
