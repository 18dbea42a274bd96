// `npm start` = build, then `node dist/functions/local/start.js`: the project's app in the embedded host,
// saying where it listens, answering healthz, stopping cleanly on Ctrl-C (SIGINT).
// The build goes to a temporary copy of the layout (not the shared dist/), and its type errors are
// not this test's concern (`npm run typecheck` checks types; tsc still emits JavaScript).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

it('npm start runs "npm run build && node dist/functions/local/start.js"', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  expect(pkg.scripts.start).toBe('npm run build && node dist/functions/local/start.js');
});

it('given the built app, when main starts, then it says where it listens, healthz answers ok and Ctrl-C stops it cleanly', async () => {
  const layout = mkdtempSync(join(tmpdir(), 'kubescribe-start-'));
  const dataDir = join(layout, 'data');
  copyFileSync(join(ROOT, 'package.json'), join(layout, 'package.json'));
  copyFileSync(join(ROOT, 'host.json'), join(layout, 'host.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(layout, 'node_modules'), 'dir');
  spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      join(layout, 'dist'),
    ],
    {
      cwd: ROOT,
    },
  );
  const child = spawn(process.execPath, [join(layout, 'dist', 'functions', 'local', 'start.js')], {
    cwd: layout,
    env: { ...process.env, PORT: '0', KUBESCRIBE_DATA: dataDir },
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
    let url: string | undefined;
    for (let i = 0; i < 300 && !url && child.exitCode === null; i++) {
      url = /listening on (http:\/\/[^\s]+)/.exec(output)?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    expect({ url, output }).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    const res = await fetch(`${url}/api/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(output).toContain('Configuration: the default configuration (no KUBESCRIBE_CONFIG)\n');
    expect(output).toContain(`  local: ${join(dataDir, 'repository.git')}, branch main, path .\n`);
    expect(output).toContain(`Data folder: ${dataDir}\n`);
    // The embedded host's fallback task hub name is no setting of this app's.
    expect(output).not.toContain('TestHubName');
    // the functions are counted at start, not listed
    const loaded = output.split('\n').find((line) => line.includes('"event":"AppLoaded"'));
    expect(JSON.parse(loaded!)).toMatchObject({ functions: expect.any(Number) });
    // the printed way to see the commit works before there is one (no "unknown revision")
    const gitLog = /^ {2}git (--git-dir=\S+ log .+)$/m.exec(output)?.[1];
    expect(gitLog).toBeDefined();
    expect(spawnSync('git', gitLog!.split(' ')).status).toBe(0);

    // A second start on the same data folder refuses; one on the same port says how to pick another.
    const port = new URL(url!).port;
    const sameFolder = await runStart(layout, { PORT: '0', KUBESCRIBE_DATA: dataDir });
    expect(sameFolder).toMatchObject({
      code: 1,
      output: expect.stringContaining(`the data folder ${dataDir} is in use`),
    });
    const samePort = await runStart(layout, { PORT: port, KUBESCRIBE_DATA: join(layout, 'other') });
    expect(samePort).toMatchObject({
      code: 1,
      output: expect.stringContaining(`e.g. PORT=${Number(port) + 1} npm start`),
    });

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('"event":"HostStopped"');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(layout, { recursive: true, force: true });
  }
}, 120_000);

/** Runs the built start script to its exit (it is expected to fail fast). */
function runStart(
  layout: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(layout, 'dist', 'functions', 'local', 'start.js')], {
    cwd: layout,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}
