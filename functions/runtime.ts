import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { app } from '@azure/functions';
import { type AppRuntime, createAppRuntime } from '../shared/app/runtime/app-runtime';
import {
  checkHosting,
  checkPublishTimeout,
  checkRepositoryConcurrency,
  functionTimeoutMs,
  maxConcurrentActivities,
} from '../shared/app/runtime/hosting';
import { prepareLocalRepositories } from '../shared/app/runtime/local-repository';
import { loadConfig } from '../shared/config';
import { openPayloadStore } from '../shared/payloads';
import { telemetry } from './telemetry';

let runtime: Promise<AppRuntime> | undefined;

// A host that stops forgets the runtime, so the next start reads the configuration again, as a new
// process does (the embedded host can start again in one process: its tests change recipients so).
app.hook.appTerminate(() => {
  runtime = undefined;
});

/**
 * The app's runtime for this process, built once from the environment (the app settings
 * contract). A failure is not cached: the next request tries again and says why meanwhile.
 */
export function appRuntime(): Promise<AppRuntime> {
  runtime ??= build().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

async function build(): Promise<AppRuntime> {
  const loaded = await loadConfig({ env: process.env, readFile: (path) => readFile(path, 'utf8') });
  checkHosting(loaded, process.env);
  // The Functions host runs the app from its root, where host.json is.
  const hostJson = await readFile(join(process.cwd(), 'host.json'), 'utf8').then(JSON.parse, () => ({}));
  checkPublishTimeout(loaded, functionTimeoutMs(hostJson));
  checkRepositoryConcurrency(loaded, maxConcurrentActivities(hostJson));
  // `npm start` refused wrong local repositories before listening; here only the ones to create.
  await prepareLocalRepositories(loaded, { refuse: false });
  const { keyEscrow, feedMemory, ...payloads } = await openPayloadStore({ setting: loaded.payloads });
  const runtime = createAppRuntime({ loaded, payloads, keyEscrow, feedMemory, nowMs: () => Date.now() });
  telemetry?.knowBranches(
    [...runtime.targets.values()].map(({ repository, branch }) => ({
      key: branch.key,
      repository: repository.name,
      branch: branch.branch,
    })),
  );
  return runtime;
}
