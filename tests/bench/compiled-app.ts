import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as EmbeddedHost from '../../embedded/host';

const ROOT = join(__dirname, '..', '..');

type Host = Awaited<ReturnType<typeof EmbeddedHost.startHost>>;

/** Only warnings and errors: a benchmark's output is its figures. */
const warningsOnly: EmbeddedHost.HostOptions['logger'] = (level, event, fields) => {
  if (level !== 'info' && level !== 'debug') console.error(event, fields);
};

/**
 * Starts the compiled app (dist/, what `npm start` runs after `npm run build`) on the embedded
 * host, with `config` as its configuration file and `dataDir` as its data folder and Git cache.
 */
export async function startCompiledApp({
  config,
  dataDir,
  activityThreads = 1,
  hostJson,
  logger = warningsOnly,
  clock,
  semantics,
}: {
  config: unknown;
  dataDir: string;
  activityThreads?: number;
  /** The host settings (`npm start` reads the project's host.json); default: the embedded host's defaults. */
  hostJson?: EmbeddedHost.HostOptions['hostJson'];
  logger?: EmbeddedHost.HostOptions['logger'];
  /** The host's clock (default real time); a virtual one needs activities on the main thread. */
  clock?: EmbeddedHost.HostOptions['clock'];
  /** Which engine's promises the host keeps (default: the environment's, else exact). */
  semantics?: EmbeddedHost.HostOptions['semantics'];
}): Promise<Host> {
  const { startHost } = require(join(ROOT, 'dist', 'embedded', 'host.js')) as typeof EmbeddedHost;
  const configFile = join(dataDir, 'kubescribe.json');
  writeFileSync(configFile, JSON.stringify(config));
  Object.assign(process.env, {
    KUBESCRIBE_CONFIG: configFile,
    KUBESCRIBE_DATA: dataDir,
    KUBESCRIBE_GIT_CACHE: join(dataDir, 'cache'),
  });
  return startHost({
    appEntry: join(ROOT, 'dist', 'functions', 'index.js'),
    dataDir,
    port: 0,
    activityThreads,
    ...(hostJson === undefined ? {} : { hostJson }),
    logger,
    clock,
    ...(semantics === undefined ? {} : { semantics }),
  });
}
