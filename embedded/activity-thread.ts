/**
 * The entry of an activity thread: loads the app (its own copy of the function registry, as a
 * second language worker process has) and runs the activity invocations the host posts to it. The
 * durable client of an activity reaches the host over its local RPC API, as from any process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  type ActivityThreadReply,
  activityThreadDataSchema,
  activityThreadRequestSchema,
} from './activity-thread-messages';
import { installCoreModule, registry } from './core-module';
import { invokeActivity } from './invoke';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('activity-thread.ts runs as a worker thread of the embedded host');
  const { appEntry } = activityThreadDataSchema.parse(workerData);
  const post = (reply: ActivityThreadReply) => port.postMessage(reply);
  installCoreModule();
  registry.onLog = (level, category, message) => post({ kind: 'log', fn: '', level, category, message });
  require(appEntry);
  for (const hook of registry.hooks.get('appStart') ?? [])
    await hook({ hookData: {}, appHookData: {}, functionAppDirectory: process.cwd() });
  port.on('message', (message: unknown) => {
    const request = activityThreadRequestSchema.parse(message);
    const run = () =>
      invokeActivity({
        fn: registry.functions.get(request.name.toLowerCase()),
        ...request,
        log: (name, level, category, text) => post({ kind: 'log', fn: name, level, category, message: text }),
      });
    run().then(
      (value) => post({ kind: 'result', id: request.id, value }),
      (e: unknown) => {
        const error = e instanceof Error ? e : new Error(String(e));
        post({ kind: 'error', id: request.id, message: error.message, stack: error.stack ?? '' });
      },
    );
  });
  post({ kind: 'ready' });
}

main().catch((e: unknown) => {
  // an app that cannot load here fails every activity; the host logs the reason with each failure
  const error = e instanceof Error ? e : new Error(String(e));
  parentPort?.postMessage({ kind: 'fatal', message: error.message, stack: error.stack ?? '' });
});
