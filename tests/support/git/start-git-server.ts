import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { GitServerAuth } from './serve-git-http';

/**
 * Starts a loopback smart-HTTP Git server (the real `git http-backend`) for the bare repositories
 * under `root`, in its own process, on a random port: `${url}/<name>.git` is a repository.
 * Because it is a separate process, tests may call `git` synchronously against it.
 *
 * @example const server = await startGitServer({ root }); ... await server.stop();
 */
export function startGitServer({
  root,
  auth,
}: {
  root: string;
  auth?: GitServerAuth;
}): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'git-server-process.ts'), root], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, KUBESCRIBE_TEST_GIT_AUTH: auth ? JSON.stringify(auth) : '' },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`git server exited early (${code})`)));
    child.stdout.once('data', (data: Buffer) => {
      resolve({
        url: data.toString().trim(),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
