/**
 * `npm start`: runs the project's Functions app (package.json "main") in the embedded host.
 * Data stays in KUBESCRIBE_DATA (default .kubescribe/); the app's configuration (KUBESCRIBE_CONFIG)
 * says where to listen (`server.host`/`server.port`, default 127.0.0.1:7071; PORT overrides the port);
 * KUBESCRIBE_TLS_CERT_FILE and KUBESCRIBE_TLS_KEY_FILE make it serve HTTPS.
 * Ctrl-C (SIGINT) or SIGTERM stops it cleanly.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startHost } from '../../embedded';
import { prepareLocalRepositories } from '../../shared/app/runtime/local-repository';
import { explainStartFailure, startBanner } from '../../shared/app/runtime/start-messages';
import { loadConfig, readTlsSetting } from '../../shared/config';

async function main(): Promise<void> {
  const root = resolve(__dirname, '..', '..', '..');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main?: string };
  // The app's configuration says where to listen (`server.host`, `server.port`, `PORT` overriding),
  // so that a loopback-only configuration with auth disabled is never served on another interface.
  const loaded = await loadConfig({ env: process.env, readFile: (path) => readFile(path, 'utf8') });
  const { config, dataDir } = loaded;
  // Before listening: a wrong local repository stops start-up now, not at the first publication.
  await prepareLocalRepositories(loaded);
  const tls = await readTlsSetting({ env: process.env, readFile: (path) => readFile(path, 'utf8') });
  const host = await startHost({
    appEntry: join(root, pkg.main ?? 'dist/functions/index.js'),
    dataDir,
    host: config.server.host,
    port: config.server.port,
    hostJson: join(root, 'host.json'),
    tls,
    // publications (tree building, packing) on a thread of their own, so that intake keeps its own
    activityThreads: 1,
  }).catch((error: unknown) => {
    throw new Error(explainStartFailure(error, config.server));
  });
  process.stderr.write(startBanner({ loaded, url: host.url }));
  if (loaded.origin.kind === 'default')
    process.stderr.write(firstSteps(host.url, config.repositories[0]?.url ?? ''));
  const stop = (signal: string): void => {
    process.stderr.write(`${signal}: stopping...\n`);
    host.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`stop failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

/** What to try first with the default configuration: post a change, then look at the repository. */
function firstSteps(url: string, repository: string): string {
  const change = JSON.stringify({
    events: [
      {
        type: 'ADDED',
        resource: 'configmaps',
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'hello', namespace: 'default' },
          data: { greeting: 'hi' },
        },
      },
    ],
  });
  return [
    'No KUBESCRIBE_CONFIG given: using the default configuration, target "local" at the root of branch',
    `"main" in the local repository ${repository}.`,
    'Post a change:',
    `  curl -X POST ${url}/api/v1/targets/local/events -H 'content-type: application/json' -d '${change}'`,
    'and, once its commit window closed (5 s), see the commit (this prints nothing before the first one):',
    `  git --git-dir=${repository} log --stat --branches=main`,
    '',
  ].join('\n');
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`kubescribe failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
