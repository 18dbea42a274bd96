import { readFile } from 'node:fs/promises';
import { ensureError, KubescribeError, scrubSecrets } from '../errors';
import { packageVersion } from '../package-version';
import { commandsUsage, forwardUsage, versionUsage } from './cli-usage';
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
  if (command === '--help' || command === '-h') {
    io.stdout.write(commandsUsage);
    return 0;
  }
  // no command is a usage error: a script that forgot it must not read as done
  if (command === undefined) {
    io.stderr.write(`kubescribe: no command given\n\n${commandsUsage}`);
    return 2;
  }
  if (command === 'help') {
    if (rest[0] === 'forward') io.stdout.write(forwardUsage);
    else if (rest[0] === 'version') io.stdout.write(versionUsage);
    else if (rest[0] === undefined) io.stdout.write(commandsUsage);
    else {
      io.stderr.write(`kubescribe help: unknown command "${rest[0]}"\n\n${commandsUsage}`);
      return 2;
    }
    return 0;
  }
  if (command === 'version' || command === '--version') {
    if (rest[0] === '--help' || rest[0] === '-h') io.stdout.write(versionUsage);
    else io.stdout.write(`kubescribe ${packageVersion()}\n`);
    return 0;
  }
  if (command !== 'forward') {
    io.stderr.write(`kubescribe: unknown command "${command}"\n\n${commandsUsage}`);
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
    const text = await readFile(configPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ConfigFileUnreadable(
        configPath,
        error.code === 'ENOENT' ? 'there is no such file' : error.message,
      );
    });
    const config = parseForwarderConfig(text);
    const tokenEnv = config.kubescribe.tokenEnv;
    const token = tokenEnv === undefined ? undefined : io.env[tokenEnv];
    if (tokenEnv !== undefined && !token) {
      io.stderr.write(
        `kubescribe forward: the token variable ${tokenEnv} (kubescribe.tokenEnv) is not set\n`,
      );
      return 2;
    }
    const connection = await kubeConnectionFromConfig(config.cluster, io.env);
    const progress = createProgress({ stream: io.stderr, log });
    await runForwarder({ config, connection, token, log, progress, once, signal: io.signal });
    return 0;
  } catch (thrown) {
    if (io.signal.aborted) return 0;
    const error = ensureError(thrown);
    if (error instanceof ConfigFileUnreadable) {
      io.stderr.write(`kubescribe forward: ${error.message}\n`);
      return 2;
    }
    io.stderr.write(`kubescribe forward: ${error.name}: ${error.message}\n`);
    return ['ForwarderConfigInvalid', 'KubeconfigUnusable', 'ForwardGaveUp'].includes(error.name) ? 2 : 1;
  }
}

/** The configuration file named by --config could not be read; the message says which file and why. */
class ConfigFileUnreadable extends KubescribeError<{ path: string; reason: string }> {
  static readonly code = 'ConfigFileUnreadable';
  readonly code = ConfigFileUnreadable.code;
  constructor(path: string, reason: string) {
    super(`cannot read the configuration file "${path}": ${reason}`, { path, reason });
  }
}
