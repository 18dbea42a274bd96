// Spawns tests/support/embedded/host-process.ts and waits for its READY line (bounded).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** A host running as a child process. */
export interface ChildHost {
  child: ChildProcess;
  url: string;
  rpcBaseUrl: string;
  recovered: { messages: number; activities: number; timers: number };
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the host with `appEntry` on `dataDir` in a child process. */
export function spawnHost(
  appEntry: string,
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<ChildHost> {
  const script = join(__dirname, 'host-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, appEntry, dataDir], {
    cwd: join(__dirname, '..', '..', '..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`host did not start within 30 s: ${err}`));
    }, 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (!line) return;
      clearTimeout(timer);
      const info = JSON.parse(line.slice(6)) as Omit<ChildHost, 'child' | 'stderr' | 'exited'>;
      resolve({ child, ...info, stderr: () => err, exited });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code} before it was ready: ${err}`));
    });
  });
}
