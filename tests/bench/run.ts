/**
 * `npm run bench`: runs every `tests/bench/*.bench.ts` one after another, each in its own process
 * so that one benchmark's heap and timers do not disturb the next, then prints every figure they
 * reported (figure, baseline, ratio, goal, met?) as one table. `npm run bench -- git` runs only the
 * benchmarks whose file name contains "git"; `npm run bench -- scale` the 100,000-object cluster
 * (SCALE_OBJECTS sets its size; STREAM_SAMPLES and STREAM_RATE the steady stream that follows it);
 * `npm run bench -- outage` a 6-hour Git outage on a virtual clock (OUTAGE_HOURS sets its length).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Figure, table } from './figures';

const only = process.argv.slice(2);
const benches = readdirSync(__dirname)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

const figuresDir = mkdtempSync(join(tmpdir(), 'ks-bench-figures-'));
const figuresFile = join(figuresDir, 'figures.jsonl');
let failed = 0;
for (const bench of benches) {
  console.log(`\n=== ${bench}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, bench)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_FIGURES: figuresFile },
  });
  if (run.status !== 0) failed += 1;
}
const figures = existsSync(figuresFile)
  ? readFileSync(figuresFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Figure)
  : [];
rmSync(figuresDir, { recursive: true, force: true });
if (figures.length > 0) console.log(`\n=== figures\n${table(figures)}`);
process.exitCode = failed === 0 ? 0 : 1;
