import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

const ENV = {
  GIT_AUTHOR_NAME: 'cli writer',
  GIT_AUTHOR_EMAIL: 'cli@example.invalid',
  GIT_COMMITTER_NAME: 'cli writer',
  GIT_COMMITTER_EMAIL: 'cli@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/**
 * Runs the real `git` CLI asynchronously (never synchronously: a sync call against a server living
 * in the same process deadlocks it). Resolves with trimmed stdout; rejects with stderr on failure.
 */
export function runGit({
  args,
  cwd,
  input,
}: {
  args: string[];
  cwd?: string;
  input?: string | Buffer;
}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: cwd ?? tmpdir(),
      env: { ...process.env, HOME: tmpdir(), ...ENV },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8').trim();
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(`git ${args.join(' ')} failed (${code}): ${Buffer.concat(err).toString('utf8').trim()}`),
        );
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}
