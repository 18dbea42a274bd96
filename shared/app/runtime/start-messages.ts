import { describeConfigOrigin, type LoadedConfig } from '../../config';
import { repositoryForDisplay } from './branch-key';

/**
 * What `npm start` says once it listens: where, which configuration it loaded, the targets it
 * serves and the data folder, so that an operator sees at once whether the intended file was read.
 */
export function startBanner({
  loaded,
  url,
}: {
  loaded: Pick<LoadedConfig, 'config' | 'origin' | 'dataDir'>;
  url: string;
}): string {
  const { config, origin, dataDir } = loaded;
  const source =
    origin.kind === 'default'
      ? `${describeConfigOrigin(origin)} (no KUBESCRIBE_CONFIG)`
      : describeConfigOrigin(origin);
  const repositories = new Map(config.repositories.map((repository) => [repository.name, repository.url]));
  const lines = [
    `kubescribe is listening on ${url} (try ${url}/api/healthz); Ctrl-C stops it.`,
    `Configuration: ${source}`,
    `Targets (${config.targets.length}):`,
    ...config.targets.map(
      (target) =>
        `  ${target.name}: ${repositoryForDisplay(repositories.get(target.repository) ?? '')}, branch ${target.branch}, path ${target.path}`,
    ),
    `Data folder: ${dataDir}`,
  ];
  if (config.server.auth === 'disabled') {
    lines.push('Authentication is disabled (allowed on a loopback address only).');
  }
  return `${lines.join('\n')}\n`;
}

/** Why `npm start` could not start, with the fix when there is a known one. */
export function explainStartFailure(error: unknown, { host, port }: { host: string; port: number }): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    const next = port === 65535 ? port - 1 : port + 1;
    return `${host}:${port} is already in use (another kubescribe, or another program): start on another port with PORT, e.g. PORT=${next} npm start`;
  }
  return error instanceof Error ? error.message : String(error);
}
