/**
 * `npm run bench`: runs every `tests/bench/*.bench.ts` one after another, each in its own process
 * so that one benchmark's heap and timers do not disturb the next. `npm run bench -- git` runs only
 * the benchmarks whose file name contains "git".
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
const benches = readdirSync(__dirname)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

let failed = 0;
for (const bench of benches) {
  console.log(`\n=== ${bench}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, bench)], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exitCode = failed === 0 ? 0 : 1;
