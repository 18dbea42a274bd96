// Loads an app the way the Azure Functions Node worker does, in a fresh process, and reports the
// functions it registered and what loading cost. From azure-functions-nodejs-worker (v3.x):
// - src/setupCoreModule.ts: `@azure/functions-core` is no package but a proxy on
//   `Module.prototype.require` that returns the worker's API (registerFunction, setProgrammingModel,
//   registerHook, log);
// - src/startApp.ts: the entry is package.json `main` of the app folder, loaded once at start;
// - src/loadScriptFile.ts: an `.mjs` entry (or `"type": "module"`) is loaded with `import()`, any
//   other with `require`;
// - src/coreApi/registerFunction.ts: a registration is its metadata (name, bindings) and callback,
//   keyed by `functionId || name`, refused when the name repeats.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';

const run = promisify(execFile);

const WORKER_LOAD = `
const Module = require('node:module');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const registrations = {};
let programmingModel;
const started = performance.now();
const cpu = process.cpuUsage();
const coreApi = {
  version: '3.10.1',
  hostVersion: '4.1040.0',
  registerHook: () => ({ dispose() {} }),
  setProgrammingModel: (model) => { programmingModel = model; },
  getProgrammingModel: () => programmingModel,
  log: () => {},
  registerFunction: (metadata, callback) => {
    const id = metadata.functionId || metadata.name;
    if (id in registrations) throw new Error('A function with id "' + id + '" has already been registered.');
    registrations[id] = { name: metadata.name, bindings: metadata.bindings, callback: typeof callback };
    return { dispose() {} };
  },
};
Module.prototype.require = new Proxy(Module.prototype.require, {
  apply(target, self, args) {
    return args[0] === '@azure/functions-core' ? coreApi : Reflect.apply(target, self, args);
  },
});
const app = process.env.FUNCTIONS_APP;
// The files the load reads (module.registerHooks, Node 22.15+): what a cold start pays for.
const read = new Set();
Module.registerHooks?.({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.startsWith('file:')) read.add(require('node:url').fileURLToPath(resolved.url));
    return resolved;
  },
});
const pkg = require(join(app, 'package.json'));
const entry = join(app, process.env.FUNCTIONS_ENTRY || pkg.main);
const esm = entry.endsWith('.mjs') || (pkg.type === 'module' && !entry.endsWith('.cjs'));
(esm ? import(pathToFileURL(entry).href) : Promise.resolve(require(entry))).then(async () => {
  const used = process.cpuUsage(cpu);
  const loadMs = performance.now() - started;
  const readAtLoad = [...read].filter((f) => f.startsWith(app + '/')).map((f) => f.slice(app.length + 1)).sort();
  const extra = JSON.parse(process.env.FUNCTIONS_IMPORT_AFTER || '[]');
  for (const file of extra) await import(pathToFileURL(join(app, file)).href);
  process.stdout.write(JSON.stringify({
    loadMs,
    cpuMs: (used.user + used.system) / 1000,
    programmingModel: programmingModel ? programmingModel.name : null,
    readAtLoad,
    registrations: Object.values(registrations),
  }));
}, (error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });
`;

const binding = z.looseObject({ type: z.string(), direction: z.string() });
const loaded = z.object({
  loadMs: z.number(),
  cpuMs: z.number(),
  programmingModel: z.string().nullable(),
  /** Files under the app folder that loading the entry read (before `importAfter`). */
  readAtLoad: z.array(z.string()),
  registrations: z.array(
    z.object({ name: z.string(), bindings: z.record(z.string(), binding), callback: z.string() }),
  ),
});
export type WorkerLoad = z.infer<typeof loaded>;

/**
 * Starts `node` on the app in `app` (its package.json `main`, or `entry`) as the worker would;
 * `nodeArgs` go before the script (e.g. `--import tsx` for TypeScript sources), `importAfter`
 * lists files (relative to `app`) imported once the entry has loaded.
 */
export async function loadAsFunctionsWorker({
  node,
  app,
  entry,
  nodeArgs = [],
  importAfter = [],
}: {
  node: string;
  app: string;
  entry?: string;
  nodeArgs?: string[];
  importAfter?: string[];
}): Promise<WorkerLoad> {
  const { stdout } = await run(node, [...nodeArgs, '-e', WORKER_LOAD], {
    cwd: app,
    maxBuffer: 16 * 2 ** 20,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      FUNCTIONS_APP: app,
      FUNCTIONS_ENTRY: entry ?? '',
      FUNCTIONS_IMPORT_AFTER: JSON.stringify(importAfter),
      // Registers the Event Hubs feed, as a deployment with a cluster to read does.
      KUBESCRIBE_EVENTHUB_NAME: 'aks-audit',
    },
  });
  return loaded.parse(JSON.parse(stdout));
}

/** `name (triggerType)` of each registration, sorted. */
export function functionList(load: WorkerLoad): string[] {
  return load.registrations
    .map((r) => {
      const trigger = Object.values(r.bindings).find((b) => /trigger$/i.test(b.type));
      return `${r.name} (${trigger?.type ?? 'no trigger'})`;
    })
    .sort();
}
