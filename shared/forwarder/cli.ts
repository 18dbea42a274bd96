import { readFile } from 'node:fs/promises';
import { ensureError, scrubSecrets } from '../errors';
import { forwardUsage } from './cli-usage';
import { parseForwarderConfig } from './config';
import { runForwarder } from './forward';
import { kubeConnectionFromConfig } from './kube-connection';
import { createProgress } from './progress';
import type { ForwarderLog } from './runtime';

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { isTTY?: boolean; write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Aborts on SIGINT/SIGTERM in the real process. */
  signal: AbortSignal;
}

/**
 * `kubescribe forward [--config <file>] [--once]`: returns the process exit code (0 done or stopped,
 * 1 failed, 2 bad usage or configuration). Log lines are JSON on stdout; the snapshot progress bar
 * goes to stderr when it is a terminal.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(forwardUsage);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'forward') {
    io.stderr.write(`kubescribe: unknown command "${command}"\n${forwardUsage}`);
    return 2;
  }
  let configPath = io.env.KUBESCRIBE_FORWARDER_CONFIG;
  let once = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') {
      io.stdout.write(forwardUsage);
      return 0;
    }
    if (arg === '--once') once = true;
    else if (arg === '--config' && rest[i + 1] !== undefined) configPath = rest[++i];
    else if (arg?.startsWith('--config=')) configPath = arg.slice('--config='.length);
    else {
      io.stderr.write(`kubescribe forward: unknown argument "${arg}"\n${forwardUsage}`);
      return 2;
    }
  }
  if (configPath === undefined) {
    io.stderr.write(`kubescribe forward: --config (or KUBESCRIBE_FORWARDER_CONFIG) is required\n`);
    return 2;
  }
  const log: ForwarderLog = (event, fields) =>
    io.stdout.write(
      `${scrubSecrets(JSON.stringify({ time: new Date().toISOString(), event, ...fields }))}\n`,
    );
  try {
    const config = parseForwarderConfig(await readFile(configPath, 'utf8'));
    const tokenEnv = config.kubescribe.tokenEnv;
    const token = tokenEnv === undefined ? undefined : io.env[tokenEnv];
    if (tokenEnv !== undefined && !token) {
      io.stderr.write(
        `kubescribe forward: the token variable ${tokenEnv} (kubescribe.tokenEnv) is not set\n`,
      );
      return 2;
    }
    const connection = await kubeConnectionFromConfig(config.cluster);
    const progress = createProgress({ stream: io.stderr, log });
    await runForwarder({ config, connection, token, log, progress, once, signal: io.signal });
    return 0;
  } catch (thrown) {
    if (io.signal.aborted) return 0;
    const error = ensureError(thrown);
    io.stderr.write(`kubescribe forward: ${error.name}: ${error.message}\n`);
    return error.name === 'ForwarderConfigInvalid' || error.name === 'KubeconfigUnusable' ? 2 : 1;
  }
}
