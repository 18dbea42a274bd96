/**
 * One app of the metrics benchmark, in a process of its own (the app's telemetry is one per
 * process): the built app on the embedded host as `npm start` runs it, with KUBESCRIBE_METRICS as
 * the parent set it. Tells the parent its URL, and its CPU time whenever asked.
 */
import { join } from 'node:path';
import type * as EmbeddedHost from '../../embedded/host';

const ROOT = join(__dirname, '..', '..');

async function main(): Promise<void> {
  const { startHost } = require(join(ROOT, 'dist', 'embedded', 'host.js')) as typeof EmbeddedHost;
  const host = await startHost({
    appEntry: join(ROOT, 'dist', 'functions', 'index.js'),
    dataDir: process.env.KUBESCRIBE_DATA!,
    port: 0,
    activityThreads: 1,
    logger: (level, event, fields) => {
      if (level === 'error') console.error(event, fields);
    },
  });
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
    if (message === 'stop') void host.stop().then(() => process.exit(0));
  });
  process.send?.({ url: host.url });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
