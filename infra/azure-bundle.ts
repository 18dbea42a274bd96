// The Azure package's app (`npm run package`, infra/package-app.ts): functions/index.ts and the
// production code it reaches, bundled by esbuild into dist/index.mjs and its chunks. Flex Consumption
// reads the package on every cold start, so it carries no node_modules: no dev tools, no TypeScript,
// and neither the embedded host nor its native SQLite (the Functions host runs the app there).
//
// ES modules, because esbuild splits chunks only for them: what the app loads with `import()` (the
// OpenTelemetry exporter, the Kubernetes client) stays in chunks a cold start does not read, and
// what it loads with a lazy `require()` (the Git executor, the Azure Storage SDK) is bundled but not
// run until first required. The Functions Node worker imports an `.mjs` entry as ES module
// (azure-functions-nodejs-worker src/loadScriptFile.ts, isESModule). The bundled CommonJS packages
// still call `require`, `__dirname` and `__filename`: each output file defines them for itself, the
// last two under names of their own, since a bundled ES module may declare a `__dirname` of its own.
import { relative, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { type Entry, PackageError } from './app-files';

const ROOT = resolve(__dirname, '..');

/** The entry the Functions host loads: package.json `main` in the package. */
export const AZURE_ENTRY = 'dist/index.mjs';

/**
 * Provided by the Functions Node worker at run time, never installed: it hooks `require` for this
 * name (azure-functions-nodejs-worker src/setupCoreModule.ts).
 */
const WORKER_PROVIDED = ['@azure/functions-core'];

/** Inputs the Azure app must never reach: the embedded host and its native SQLite run only off Azure. */
const OFF_AZURE = [/^embedded\//, /(^|\/)node_modules\/better-sqlite3\//, /\.node$/];

const BANNER = [
  "import { createRequire as __ksCreateRequire } from 'node:module';",
  "import { dirname as __ksDirname } from 'node:path';",
  "import { fileURLToPath as __ksFileURLToPath } from 'node:url';",
  'const require = __ksCreateRequire(import.meta.url);',
  'const __ksFilename = __ksFileURLToPath(import.meta.url);',
  'const __ksDirnameOfFile = __ksDirname(__ksFilename);',
].join(' ');

export interface AzureBundle {
  /** dist/index.mjs and its chunks, as zip entries. */
  files: Entry[];
  /** The source files and packages bundled, relative to the repository. */
  inputs: string[];
}

/** Bundles `entry` (default functions/index.ts) for the Functions host; refuses what must stay off Azure. */
export async function bundleAzureApp({
  entry = resolve(ROOT, 'functions', 'index.ts'),
}: {
  entry?: string;
} = {}): Promise<AzureBundle> {
  const outdir = resolve(ROOT, '.tmp', 'azure-bundle', 'dist');
  const result = await build({
    entryPoints: { index: entry },
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    external: WORKER_PROVIDED,
    // Whitespace and syntax only: identifiers and function names stay, so stack traces and
    // `error.name` read as in the sources.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: 'none',
    banner: { js: BANNER },
    define: { __dirname: '__ksDirnameOfFile', __filename: '__ksFilename' },
    metafile: true,
    write: false,
    logLevel: 'silent',
  }).catch((error: unknown) => {
    throw new PackageError(
      `esbuild could not bundle the app: ${error instanceof Error ? error.message : error}`,
    );
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) => relative(ROOT, resolve(ROOT, input)));
  const offAzure = inputs.filter((input) => OFF_AZURE.some((pattern) => pattern.test(input)));
  if (offAzure.length > 0) {
    throw new PackageError(
      `the Azure app reaches modules that run only off Azure (the embedded host, native SQLite): ${offAzure.join(', ')}; ${importersOf(result.metafile, offAzure)}`,
    );
  }
  const files = result.outputFiles
    .map((file) => ({
      path: `dist/${relative(outdir, file.path).split('\\').join('/')}`,
      source: Buffer.from(file.contents),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  if (!files.some((file) => file.path === AZURE_ENTRY))
    throw new PackageError(`esbuild wrote no ${AZURE_ENTRY}`);
  return { files, inputs };
}

/** Which bundled modules import the refused ones, so the message says where to cut. */
function importersOf(metafile: Metafile, refused: string[]): string {
  const importers = Object.entries(metafile.inputs)
    .filter(([, input]) => input.imports.some((i) => refused.includes(relative(ROOT, resolve(ROOT, i.path)))))
    .map(([path]) => relative(ROOT, resolve(ROOT, path)))
    .filter((path) => !refused.includes(path));
  return `imported by ${importers.join(', ')}`;
}
