// `npm run package`: the Azure package is the bundled app (dist/index.mjs and its chunks), host.json
// and package.json, nothing else: no node_modules, no embedded host, no native SQLite. Extracted, it
// loads on its own the way the Functions Node worker loads an app (tests/support/functions-worker-load.ts)
// and registers the same functions, with the same bindings, as the sources. The zip is checked and
// extracted by python3's zipfile module, a ZIP implementation independent of the writer.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { PackageError } from '../../infra/app-files';
import { bundleAzureApp } from '../../infra/azure-bundle';
import { ensureNodeRuntime } from '../../infra/node-runtime';
import { functionList, loadAsFunctionsWorker, type WorkerLoad } from '../support/functions-worker-load';

const ROOT = join(__dirname, '..', '..');
const PACKAGE_JSON = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
};
/** The bound for a package Flex Consumption reads on every cold start. */
const MAX_ZIP_BYTES = 10 * 2 ** 20;
const MAX_ZIP_FILES = 300;

let work: string;
let zip: string;
let app: string;
let packaging: { status: number | null; stdout: string; stderr: string };
let zipTest: { status: number | null; stdout: string; stderr: string };

function run(command: string, args: string[], timeout = 300_000) {
  return spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout, maxBuffer: 64 * 2 ** 20 });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(join(dir, p)).isFile())
    .map((p) => p.split(sep).join('/'))
    .sort();
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'kubescribe-package-'));
  zip = join(work, 'out', 'kubescribe.zip');
  app = join(work, 'app');
  packaging = run(process.execPath, ['--import', 'tsx', 'infra/package-app.ts', '--out', zip]);
  zipTest = run('python3', ['-m', 'zipfile', '-t', zip]);
  mkdirSync(app);
  run('python3', ['-m', 'zipfile', '-e', zip, app]);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('npm run package runs infra/package-app.ts, which bundles from the sources (no tsc build first)', () => {
  expect(PACKAGE_JSON.scripts.package).toBe('node --import tsx infra/package-app.ts');
});

describe('given the sources, when they are packaged for Azure', () => {
  it(`writes a valid zip of at most ${MAX_ZIP_FILES} files and ${MAX_ZIP_BYTES / 2 ** 20} MiB`, () => {
    expect(packaging).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/kubescribe\.zip: \d+ files, [\d.]+ MiB/),
    });
    expect(zipTest).toMatchObject({ status: 0, stdout: expect.stringContaining('Done testing') });
    expect(filesUnder(app).length).toBeLessThanOrEqual(MAX_ZIP_FILES);
    expect(statSync(zip).size).toBeLessThanOrEqual(MAX_ZIP_BYTES);
  });

  it('holds the bundle, host.json and package.json only: no node_modules, sources, maps or native addons', () => {
    expect(readdirSync(app).sort()).toEqual(['dist', 'host.json', 'package.json']);
    const files = filesUnder(join(app, 'dist'));
    expect(files).toContain('index.mjs');
    expect(files.filter((f) => f !== 'index.mjs' && !/^chunks\/[\w.-]+\.mjs$/.test(f))).toEqual([]);
    expect(readFileSync(join(app, 'host.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'host.json'), 'utf8'));
  });

  it('ships a package.json whose main is the bundle and which installs nothing', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({
      name: PACKAGE_JSON.name,
      version: PACKAGE_JSON.version,
      description: expect.any(String),
      license: 'Apache-2.0',
      private: true,
      main: 'dist/index.mjs',
    });
  });
});

describe(`given the extracted zip, when the Functions Node worker's way loads it on Node 22`, () => {
  let packaged: WorkerLoad;
  let sources: WorkerLoad;
  let chunks: string[];

  beforeAll(async () => {
    const { node } = ensureNodeRuntime();
    chunks = filesUnder(join(app, 'dist'))
      .filter((f) => f.startsWith('chunks/'))
      .map((f) => `dist/${f}`);
    packaged = await loadAsFunctionsWorker({ node, app, importAfter: chunks });
    sources = await loadAsFunctionsWorker({
      node,
      app: ROOT,
      entry: 'functions/index.ts',
      nodeArgs: ['--import', 'tsx'],
    });
  }, 120_000);

  it('registers every function of the app', () => {
    expect(functionList(packaged)).toEqual(
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
        'pull-request (activityTrigger)',
        'read-remote (activityTrigger)',
        'project-status (activityTrigger)',
        'branch (entityTrigger)',
        'branch-driver (orchestrationTrigger)',
        'driver-keeper (timerTrigger)',
        'eventhub-feed (eventHubTrigger)',
        'withdraw-save (orchestrationTrigger)',
      ].sort(),
    );
    expect(packaged.programmingModel).toBe('@azure/functions');
  });

  it('reads at a cold start neither the Kubernetes client nor the Application Insights exporter, which load on first use', () => {
    const holding = (pkg: string) =>
      chunks.filter((chunk) => readFileSync(join(app, chunk), 'utf8').includes(`node_modules/${pkg}/`));
    const lazy = [...holding('@kubernetes/client-node'), ...holding('@azure/monitor-opentelemetry')];
    expect(lazy.length).toBeGreaterThan(0);
    expect(packaged.readAtLoad).toContain('dist/index.mjs');
    expect(packaged.readAtLoad.filter((file) => lazy.includes(file))).toEqual([]);
  });

  it('registers them with the same bindings as the unbundled sources, and every chunk loads', () => {
    const byName = (load: WorkerLoad) => Object.fromEntries(load.registrations.map((r) => [r.name, r]));
    expect(byName(packaged)).toEqual(byName(sources));
    expect(chunks.length).toBeGreaterThan(0);
  });
});

describe('given an entry that reaches what runs only off Azure, when bundling', () => {
  const fixtures = join(ROOT, 'tests', 'fixtures', 'azure-bundle');

  it('refuses the embedded host, naming the module and who imports it', async () => {
    const bundling = bundleAzureApp({ entry: join(fixtures, 'reaches-embedded.ts') });
    await expect(bundling).rejects.toThrow(PackageError);
    await expect(bundling).rejects.toThrow(
      /only off Azure.*embedded\/clock\.ts.*imported by tests\/fixtures\/azure-bundle\/reaches-embedded\.ts/,
    );
  });

  it('refuses native SQLite', async () => {
    await expect(bundleAzureApp({ entry: join(fixtures, 'reaches-sqlite.ts') })).rejects.toThrow(
      /only off Azure.*node_modules\/better-sqlite3\//,
    );
  });
});
