// `npm run demo` end to end: the demo script runs the app on the embedded host in its own process,
// in real time (a 1 s window), and prints the save's status and the resulting `git log --stat`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
// Real time on a shared machine: generous, but bounded.
const DEMO_LIMIT_MS = 90_000;

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'functions', 'local', 'demo.ts')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), DEMO_LIMIT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it('npm run demo builds and runs dist/functions/local/demo.js', () => {
  const pkg = require(join(ROOT, 'package.json')) as { scripts: Record<string, string> };
  expect(pkg.scripts.demo).toBe('npm run build && node dist/functions/local/demo.js');
});

it('given sample changes by three authors and a save, the demo prints the save committed and a commit per author', async () => {
  const { code, stdout, stderr } = await runDemo();
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

  const saveCommit = /save demo-save-1: phase Resolved, outcome Committed, commit ([0-9a-f]{40})/.exec(
    stdout,
  )?.[1];
  expect(saveCommit).toBeDefined();
  const log = stdout.slice(stdout.indexOf('git log --stat main'));
  const commits = [...log.matchAll(/^commit ([0-9a-f]{40})\nAuthor: (\S+)/gm)].map(([, sha, author]) => ({
    sha,
    author,
  }));
  expect(commits.map((commit) => commit.author)).toEqual(['carol@example.com', 'alice', 'bob']);
  // The save's commit is Alice's own, carrying her message and both of her files.
  expect(commits[1]?.sha).toBe(saveCommit);
  const alice = log.slice(log.indexOf(`commit ${saveCommit}`), log.indexOf(`commit ${commits[2]?.sha}`));
  expect(alice).toContain('Scale web for the launch');
  expect(alice).toMatch(/clusters\/demo\/shop\/apps\/deployments\/web\.yaml\s+\|/);
  expect(alice).toMatch(/clusters\/demo\/shop\/configmaps\/web-settings\.yaml\s+\|/);
  expect(log).toMatch(/clusters\/demo\/shop\/configmaps\/feature-flags\.yaml\s+\|/);
  // The repository it printed lives in a temporary folder: the demo says so, and says it removed it.
  const repository = /publishing to (\S+) \(a temporary folder, removed when the demo ends\)/.exec(
    stdout,
  )?.[1];
  expect(repository).toBeDefined();
  const folder = dirname(repository!);
  expect(stdout).toContain(`removed ${folder}\n`);
  expect(existsSync(folder)).toBe(false);
});
