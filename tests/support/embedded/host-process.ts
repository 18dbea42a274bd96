// Runs the embedded host as a child process (for crash tests and benchmarks):
//   node --import tsx tests/support/embedded/host-process.ts <app module> <data folder>
// Prints one line `READY {"url":…,"rpcBaseUrl":…}` once it serves; SIGTERM stops it cleanly.
// KUBESCRIBE_ACTIVITY_THREADS runs activities on that many threads (default: on the main thread).
import { startHost } from '../../../embedded/host';

async function main(): Promise<void> {
  const [appEntry, dataDir] = process.argv.slice(2);
  if (!appEntry || !dataDir) throw new Error('usage: host-process.ts <app module> <data folder>');
  const host = await startHost({
    appEntry,
    dataDir,
    port: 0,
    activityThreads: Number(process.env.KUBESCRIBE_ACTIVITY_THREADS ?? 0),
    hostJson: { maxConcurrentActivities: 8, maxConcurrentOrchestrations: 8, maxConcurrentEntities: 8 },
    logger: (level, event, fields) => {
      if (level === 'error') process.stderr.write(`${JSON.stringify({ level, event, ...fields })}\n`);
    },
  });
  process.stdout.write(
    `READY ${JSON.stringify({ url: host.url, rpcBaseUrl: host.rpcBaseUrl, recovered: host.recovered })}\n`,
  );
  process.once('SIGTERM', () => {
    host.stop().then(() => process.exit(0));
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
