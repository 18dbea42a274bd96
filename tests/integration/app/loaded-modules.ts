/**
 * Loads the given modules in this fresh process and prints, as one JSON line, every file loaded
 * meanwhile: CommonJS ones from `require.cache`, ES modules (client-node is ESM-only) from a resolve
 * hook. Usage: node --import tsx loaded-modules.ts <file or package>... (a file is required, a
 * package imported)
 */
import { register } from 'node:module';
import { resolve } from 'node:path';
import { MessageChannel } from 'node:worker_threads';

const esm = new Set<string>();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => esm.add(url));
port1.unref();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: { port: port2 },
  transferList: [port2],
});

async function main(): Promise<void> {
  for (const entry of process.argv.slice(2)) {
    if (entry.includes('/') && !entry.startsWith('@')) require(resolve(entry));
    else await import(entry);
  }
  // let the hook thread's messages arrive
  await new Promise((done) => setTimeout(done, 100));
  process.stdout.write(`${JSON.stringify([...Object.keys(require.cache), ...esm])}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
