// `npm run test:node -- <major> [jest args…]`: the test suite on another Node major (the product
// deploys on Node 22 LTS; this machine's Node is 20). The Node binary comes from the npm registry
// (infra/node-runtime.ts). The tree (tracked and untracked files, not node_modules) is copied to a
// folder of its own and `npm ci` runs there under that Node, with better-sqlite3 built against its
// headers offline, so this checkout's node_modules stays built for the machine's Node.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildNativeFor, ensureNodeRuntime } from './node-runtime';

const ROOT = resolve(__dirname, '..');

function main(): number {
  const [major, ...jestArgs] = process.argv.slice(2);
  if (!major || !/^\d+$/.test(major)) {
    process.stderr.write('usage: npm run test:node -- <major> [jest args…]\n');
    return 2;
  }
  const runtime = ensureNodeRuntime(major);
  const work = mkdtempSync(join(tmpdir(), `kubescribe-node${major}-`));
  try {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter(Boolean);
    // A tracked file deleted in the working tree is not part of what is tested.
    for (const file of files.filter((path) => existsSync(join(ROOT, path)))) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      cpSync(join(ROOT, file), join(work, file));
    }
    const env = {
      ...process.env,
      PATH: `${dirname(runtime.node)}:${process.env.PATH ?? ''}`,
      npm_config_nodedir: runtime.dir,
    };
    process.stdout.write(`testing on Node ${runtime.version} in ${work}\n`);
    const run = (command: string, args: string[]) =>
      spawnSync(command, args, { cwd: work, env, stdio: 'inherit' }).status ?? 1;
    // Install scripts are skipped and the native addons taken from infra/node-runtime.ts's cache,
    // built once per runtime, instead of compiling SQLite again on every run.
    const installed = run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']);
    if (installed !== 0) return installed;
    for (const name of readdirSync(join(work, 'node_modules'))) {
      const dir = join(work, 'node_modules', name);
      if (!existsSync(join(dir, 'binding.gyp'))) continue;
      cpSync(join(buildNativeFor(dir, runtime), 'build', 'Release'), join(dir, 'build', 'Release'), {
        recursive: true,
      });
    }
    return run('npx', ['jest', ...jestArgs]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = main();
