import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const AZURITE_BIN = join(__dirname, '../../../node_modules/.bin/azurite-blob');
// Azurite's well-known development account key (public, documented by Microsoft).
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** A running Azurite blob service on a free loopback port, in memory, started by the test. */
export type Azurite = { connectionString: string; stop: () => Promise<void> };

/** Starts `azurite-blob` on 127.0.0.1 with port 0 and waits (bounded) until it says where it listens. */
export async function startAzurite(): Promise<Azurite> {
  const workspace = await mkdtemp(join(tmpdir(), 'kubescribe-azurite-'));
  const child = spawn(
    AZURITE_BIN,
    [
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      '0',
      '--inMemoryPersistence',
      '--extentMemoryLimit',
      '256',
      '--skipApiVersionCheck',
      '--disableTelemetry',
      '--loose',
    ],
    { cwd: workspace, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = async () => {
    await stopChild(child);
    await rm(workspace, { recursive: true, force: true });
  };
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`azurite did not start within 30s: ${output}`)),
        30_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listens on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] as string);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`azurite exited with ${code}: ${output}`));
      });
    });
    return {
      connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};BlobEndpoint=${endpoint}/${DEV_ACCOUNT};`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
