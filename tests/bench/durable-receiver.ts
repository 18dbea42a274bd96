/**
 * The ingest benchmark's physical baseline: a minimal durable receiver on kubescribe's HTTP stack
 * (the embedded host's app server and an @azure/functions HTTP trigger, compiled as `npm start`
 * runs it) that parses each audit EventList, appends it to one file, fsyncs, and answers 202 with
 * the accepted count, as kubescribe's audit route answers. Prints its URL as one line on stdout
 * and runs until killed. Usage: durable-receiver.ts <data dir>
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type * as EmbeddedHost from '../../embedded/host';

const ROOT = join(__dirname, '..', '..');

async function main(): Promise<void> {
  const dataDir = process.argv[2]!;
  const { startHost } = require(join(ROOT, 'dist', 'embedded', 'host.js')) as typeof EmbeddedHost;
  const file = await open(join(dataDir, 'received.jsonl'), 'a');
  const host = await startHost({
    dataDir,
    port: 0,
    logger: () => {},
    register: () => {
      // required after startHost installed the embedded core module, as the app's own modules are
      const { app } = require('@azure/functions') as typeof import('@azure/functions');
      app.http('receiver', {
        route: 'v1/targets/{target}/audit',
        methods: ['POST'],
        authLevel: 'anonymous',
        handler: async (request) => {
          const body = await request.text();
          const list = JSON.parse(body) as { kind?: string; items?: unknown[] };
          if (list.kind !== 'EventList' || !Array.isArray(list.items)) {
            return { status: 400, jsonBody: { error: 'not an EventList' } };
          }
          await file.appendFile(`${JSON.stringify(list.items)}\n`);
          await file.sync();
          return { status: 202, jsonBody: { accepted: list.items.length } };
        },
      });
    },
  });
  process.stdout.write(`${host.url}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
