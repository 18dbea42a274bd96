// `npm run package`: the deployable zip holds the compiled JavaScript, the production dependencies,
// host.json and package.json, nothing else, and once extracted it runs on its own in the embedded
// host. The build goes to a temporary folder (not the shared dist/) and its type errors are not
// this test's concern (`npm run typecheck` checks types; tsc still emits JavaScript). The zip is
// checked and extracted by python3's zipfile module, a ZIP implementation independent of the writer.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { DEPLOYED_RUNTIME, ensureNodeRuntime } from '../../infra/node-runtime';

const ROOT = join(__dirname, '..', '..');
const PACKAGE_JSON = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
const LOCK = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; optional?: boolean }>;
};

let work: string;
let zip: string;
let app: string;
let packaging: { status: number | null; stdout: string; stderr: string };
let zipTest: { status: number | null; stdout: string; stderr: string };

// Packaging on a machine whose Node is not the deployed major builds better-sqlite3 for Node 22 once
// (minutes on two cores), then takes it from the cache.
function run(command: string, args: string[], timeout = 600_000) {
  return spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout, maxBuffer: 64 * 2 ** 20 });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(join(dir, p)).isFile())
    .map((p) => p.split(sep).join('/'));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'kubescribe-package-'));
  const dist = join(work, 'dist');
  zip = join(work, 'out', 'kubescribe.zip');
  app = join(work, 'app');
  run(process.execPath, [
    join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
    '--outDir',
    dist,
  ]);
  packaging = run(process.execPath, [
    '--import',
    'tsx',
    'infra/package-app.ts',
    '--dist',
    dist,
    '--out',
    zip,
  ]);
  zipTest = run('python3', ['-m', 'zipfile', '-t', zip]);
  mkdirSync(app);
  run('python3', ['-m', 'zipfile', '-e', zip, app]);
}, 900_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('npm run package builds, then runs infra/package-app.ts', () => {
  expect(PACKAGE_JSON.scripts.package).toBe('npm run build && node --import tsx infra/package-app.ts');
});

describe('given a build, when it is packaged', () => {
  it('writes a valid zip that holds exactly dist/, node_modules/, host.json and package.json', () => {
    expect(packaging).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/kubescribe\.zip: \d+ files/),
    });
    expect(zipTest).toMatchObject({ status: 0, stdout: expect.stringContaining('Done testing') });
    expect(readdirSync(app).sort()).toEqual(['dist', 'host.json', 'node_modules', 'package.json']);
    expect(readdirSync(join(app, 'dist')).sort()).toEqual([
      'embedded',
      'functions',
      'orchestrators',
      'shared',
    ]);
    expect(readFileSync(join(app, 'host.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'host.json'), 'utf8'));
  });

  it('ships a package.json whose main is the functions entry and which lists only production dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      main: 'dist/functions/index.js',
      dependencies: PACKAGE_JSON.dependencies,
    });
    expect(manifest).not.toHaveProperty('devDependencies');
    expect(manifest).not.toHaveProperty('scripts');
    expect(existsSync(join(app, PACKAGE_JSON.main))).toBe(true);
  });

  it('holds every production dependency the lockfile names, with the native SQLite addon', () => {
    const production = Object.entries(LOCK.packages)
      .filter(([key, info]) => key.startsWith('node_modules/') && !info.dev)
      .filter(([key, info]) => !info.optional || existsSync(join(ROOT, key)))
      .map(([key]) => key);
    expect(production).toContain('node_modules/durable-functions');
    expect(production.filter((key) => !existsSync(join(app, key, 'package.json')))).toEqual([]);
    expect(existsSync(join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
  });

  it('leaves out tests, TypeScript sources, source maps, dev dependencies and local data', () => {
    const appFiles = filesUnder(join(app, 'dist'));
    expect(appFiles).toContain('functions/index.js');
    expect(appFiles.filter((f) => !f.endsWith('.js'))).toEqual([]);
    expect(appFiles.filter((f) => f.startsWith('tests/') || f.includes('.test.'))).toEqual([]);
    for (const tool of [
      'jest',
      'typescript',
      '@biomejs/biome',
      'ts-jest',
      'tsx',
      'azurite',
      '@cdktf/hcl2json',
    ]) {
      expect({ tool, packaged: existsSync(join(app, 'node_modules', tool)) }).toEqual({
        tool,
        packaged: false,
      });
    }
    const devOnly = Object.entries(LOCK.packages).filter(
      ([key, info]) => key.startsWith('node_modules/') && info.dev,
    );
    expect(devOnly.length).toBeGreaterThan(0);
    expect(devOnly.filter(([key]) => existsSync(join(app, key)))).toEqual([]);
  });
});

it('given no build, when packaging, then it fails naming the missing entry and writes no zip', () => {
  const empty = join(work, 'empty-dist');
  mkdirSync(empty);
  const out = join(work, 'none.zip');
  const result = run(process.execPath, [
    '--import',
    'tsx',
    'infra/package-app.ts',
    '--dist',
    empty,
    '--out',
    out,
  ]);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('dist/functions/index.js');
  expect(result.stderr).toContain('npm run build');
  expect(existsSync(out)).toBe(false);
});

// Plain node, outside jest's module registry: the host hooks `require('@azure/functions-core')` in
// Node's loader, which the packaged @azure/functions goes through. The host is the package's own
// compiled copy, so better-sqlite3's addon is loaded from the package too.
const CHILD_HOST = `
const app = process.env.PACKAGED_APP;
const { startHost } = require(app + '/dist/embedded/host.js');
startHost({
  appEntry: app + '/dist/functions/index.js',
  dataDir: process.env.KUBESCRIBE_DATA,
  port: 0,
  hostJson: app + '/host.json',
  logger: (level, event, fields) => {
    if (level === 'error') process.stderr.write(JSON.stringify({ event, ...fields }) + '\\n');
  },
}).then((host) => {
  const outside = Object.keys(require.cache).filter((p) => !p.startsWith(app + '/'));
  const functions = host.functions.map((f) => f.name + ' (' + f.trigger.type + ')');
  process.stdout.write('READY ' + JSON.stringify({ url: host.url, taskHub: host.settings.taskHubName, functions, outside }) + '\\n');
  process.once('SIGTERM', () => host.stop().then(() => process.exit(0)));
}, (e) => { process.stderr.write(String(e && e.stack)); process.exit(1); });
`;

interface Ready {
  url: string;
  taskHub: string;
  functions: string[];
  outside: string[];
}

function waitForReady(child: ChildProcess, output: () => string): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no READY within 45 s: ${output()}`)), 45_000);
    child.stdout!.on('data', () => {
      const line = output()
        .split('\n')
        .find((l) => l.startsWith('READY '));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice(6)) as Ready);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code}: ${output()}`));
    });
  });
}

// Run by the Node the app deploys on (22 LTS), whatever Node runs the tests: the packaged SQLite addon
// is built for it, so this fails when the zip carries an addon of another ABI.
it(`given the extracted zip, when the embedded host loads it on Node ${DEPLOYED_RUNTIME.nodeMajor}, then every function is registered from the package and healthz answers 200`, async () => {
  const child = spawn(ensureNodeRuntime().node, ['-e', CHILD_HOST], {
    cwd: app,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      PACKAGED_APP: app,
      KUBESCRIBE_DATA: join(work, 'data'),
      KUBESCRIBE_TASK_HUB: 'packagedhub',
      // Registers the Event Hubs feed, as the deployment does when it has a cluster to read.
      KUBESCRIBE_EVENTHUB_NAME: 'aks-audit',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const ready = await waitForReady(child, () => output);
    expect(ready.functions.sort()).toEqual(
      [
        'healthz (httpTrigger)',
        'metrics (httpTrigger)',
        'dashboard (httpTrigger)',
        'v1-targets (httpTrigger)',
        'v1-target (httpTrigger)',
        'v1-target-history (httpTrigger)',
        'v1-target-pending (httpTrigger)',
        'v1-target-events (httpTrigger)',
        'v1-target-audit (httpTrigger)',
        'v1-target-snapshots (httpTrigger)',
        'v1-target-snapshot-parts (httpTrigger)',
        'v1-target-snapshot-complete (httpTrigger)',
        'v1-target-saves (httpTrigger)',
        'v1-target-save (httpTrigger)',
        'v1-target-refresh (httpTrigger)',
        'v1-target-suspend (httpTrigger)',
        'v1-target-resume (httpTrigger)',
        'v1-admission (httpTrigger)',
        'v1-branch (httpTrigger)',
        'v1-branch-discard (httpTrigger)',
        'publish (activityTrigger)',
        'read-remote (activityTrigger)',
        'project-status (activityTrigger)',
        'branch (entityTrigger)',
        'branch-driver (orchestrationTrigger)',
        'driver-keeper (timerTrigger)',
        'eventhub-feed (eventHubTrigger)',
        'withdraw-save (orchestrationTrigger)',
      ].sort(),
    );
    expect(ready.taskHub).toBe('packagedhub');
    expect(ready.outside).toEqual([]);
    const res = await fetch(`${ready.url}/api/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
