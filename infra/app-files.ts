// The files of the image's build context (`npm run image`, infra/image/build-image.ts): the compiled
// JavaScript, the production dependencies, host.json and a package.json without the dev-time fields.
// The image runs the embedded host (`serve`), so it carries it and its native SQLite; the Azure zip
// (`npm run package`) is the bundle of infra/azure-bundle.ts instead, and shares only Entry and
// PackageError with this module.
//
// Production dependencies are taken from the installed node_modules, chosen by package-lock.json:
// every package the lockfile does not mark `dev`, each checked against the lockfile's version. That
// is what `npm ci --omit=dev` would install, without the network. A native addon (better-sqlite3) is
// taken as the tests ran it when this machine runs the deployed Node major, and otherwise built for
// the deployed Node (infra/node-runtime.ts): the image is for Linux x64 and Node 22.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { KubescribeError } from '../shared/errors';
import { buildNativeFor, DEPLOYED_RUNTIME, ensureNodeRuntime, runsDeployedMajor } from './node-runtime';

const ROOT = resolve(__dirname, '..');
/** package.json fields for development and installation: they name tools or files the app does not hold. */
const DEV_TIME_FIELDS = ['devDependencies', 'scripts', 'bin', 'allowScripts'];

/** Packaging cannot produce a correct zip or image context; the message says what to fix. */
export class PackageError extends KubescribeError<{ problem: string }> {
  static readonly code = 'PackageError';
  readonly code = PackageError.code;
  constructor(problem: string) {
    super(problem, { problem });
  }
}

export interface Entry {
  path: string;
  source: string | Buffer;
}

interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Files under `dir` (recursively), sorted, as paths relative to it with `/` separators. */
function walk(dir: string, skip: (relativePath: string, isDir: boolean) => boolean = () => false): string[] {
  const out: string[] = [];
  const visit = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      const full = join(current, name);
      const rel = relative(dir, full).split(sep).join('/');
      const isDir = statSync(full).isDirectory();
      if (skip(rel, isDir)) continue;
      if (isDir) visit(full);
      else out.push(rel);
    }
  };
  visit(dir);
  return out;
}

/** The compiled JavaScript of the folders tsconfig.build.json compiles, without maps or orphans. */
function compiledFiles(distDir: string): Entry[] {
  const { include } = readJson<{ include: string[] }>(join(ROOT, 'tsconfig.build.json'));
  const entries: Entry[] = [];
  for (const folder of include) {
    if (!existsSync(join(distDir, folder))) continue;
    for (const file of walk(join(distDir, folder))) {
      if (!file.endsWith('.js')) continue;
      // A .js whose source is gone is left over from an earlier build; nothing current requires it.
      if (!existsSync(join(ROOT, folder, file.replace(/\.js$/, '.ts')))) {
        process.stderr.write(
          `skipped ${folder}/${file}: no source ${folder}/${file.replace(/\.js$/, '.ts')}\n`,
        );
        continue;
      }
      entries.push({ path: `dist/${folder}/${file}`, source: join(distDir, folder, file) });
    }
  }
  return entries;
}

/** Every production package of the lockfile, as installed, minus native build leftovers. */
function productionDependencies(lock: { packages: Record<string, LockPackage> }): Entry[] {
  const entries: Entry[] = [];
  for (const [key, info] of Object.entries(lock.packages)) {
    if (!key.startsWith('node_modules/') || info.dev) continue;
    const dir = join(ROOT, key);
    if (!existsSync(dir)) {
      if (info.optional) continue;
      throw new PackageError(`${key} is in package-lock.json but not installed: run npm ci`);
    }
    const installed = readJson<{ version?: string }>(join(dir, 'package.json')).version;
    if (info.version && installed !== info.version) {
      throw new PackageError(`${key} is ${installed} but package-lock.json says ${info.version}: run npm ci`);
    }
    // node-gyp's build folder holds object files and intermediate copies next to the addon; only
    // build/<Release|Debug>/<name>.node is loaded.
    const native = existsSync(join(dir, 'binding.gyp'));
    const isAddon = (rel: string) => /^build\/[^/]+\/[^/]+\.node$/.test(rel);
    const skip = (rel: string, isDir: boolean) =>
      rel === 'node_modules' || (native && !isDir && rel.startsWith('build/') && !isAddon(rel));
    const built = native && !runsDeployedMajor() ? buildNativeFor(dir, ensureNodeRuntime()) : dir;
    for (const file of walk(dir, skip)) {
      const source = isAddon(file) ? join(built, file) : join(dir, file);
      if (!existsSync(source))
        throw new PackageError(`${key}/${file} was not built for Node ${DEPLOYED_RUNTIME.nodeMajor}`);
      entries.push({ path: `${key}/${file}`, source });
    }
  }
  return entries;
}

/** Collects the image context's app files from the repository and the compiled output in `distDir`. */
export function collect(distDir: string): Entry[] {
  if (process.platform !== DEPLOYED_RUNTIME.platform || process.arch !== DEPLOYED_RUNTIME.arch) {
    throw new PackageError(
      `the image carries native modules built on this machine (${process.platform}-${process.arch}); ` +
        `build it on ${DEPLOYED_RUNTIME.platform}-${DEPLOYED_RUNTIME.arch}, the platform it runs on`,
    );
  }
  const pkg = readJson<Record<string, unknown> & { main: string; dependencies: Record<string, string> }>(
    join(ROOT, 'package.json'),
  );
  const lock = readJson<{ packages: Record<string, LockPackage> }>(join(ROOT, 'package-lock.json'));
  const locked = lock.packages['']?.dependencies ?? {};
  for (const [name, range] of Object.entries(pkg.dependencies)) {
    if (locked[name] !== range) {
      throw new PackageError(
        `package-lock.json is out of date for ${name}@${range}: run npm install, then npm ci`,
      );
    }
  }
  const manifest = Object.fromEntries(
    Object.entries(pkg).filter(([field]) => !DEV_TIME_FIELDS.includes(field)),
  );
  const entries: Entry[] = [
    { path: 'host.json', source: join(ROOT, 'host.json') },
    { path: 'package.json', source: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    ...compiledFiles(distDir),
    ...productionDependencies(lock),
  ];
  if (!entries.some((e) => e.path === pkg.main)) {
    throw new PackageError(`the app's entry ${pkg.main} is not in ${distDir}: run npm run build first`);
  }
  return entries;
}
