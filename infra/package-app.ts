// Builds the deployable zip (`npm run package`, after `npm run build`):
//   node --import tsx infra/package-app.ts [--dist dist] [--out .tmp/kubescribe.zip]
// The zip holds the compiled JavaScript, the production dependencies, host.json and a package.json
// without the dev-time fields, and nothing else.
//
// Production dependencies are taken from the installed node_modules, chosen by package-lock.json:
// every package the lockfile does not mark `dev`, each checked against the lockfile's version. That
// is what `npm ci --omit=dev` would install, without the network and without rebuilding
// better-sqlite3, whose binary is the one the tests ran against. The binary is why the package must
// be built on the platform Azure runs (Linux x64, Node 20).
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { KubescribeError } from '../shared/errors';

const ROOT = resolve(__dirname, '..');
/** The platform Azure Functions Flex Consumption runs kubescribe on (native modules must match). */
const TARGET = { platform: 'linux', arch: 'x64', nodeMajor: '20' };
/** package.json fields for development and installation: they name tools or files the zip does not hold. */
const DEV_TIME_FIELDS = ['devDependencies', 'scripts', 'bin', 'allowScripts'];

/** Packaging cannot produce a correct zip; the message says what to fix. */
class PackageError extends KubescribeError<{ problem: string }> {
  static readonly code = 'PackageError';
  readonly code = PackageError.code;
  constructor(problem: string) {
    super(problem, { problem });
  }
}

interface Entry {
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
    const skip = (rel: string, isDir: boolean) =>
      rel === 'node_modules' ||
      (native && !isDir && rel.startsWith('build/') && !/^build\/[^/]+\/[^/]+\.node$/.test(rel));
    for (const file of walk(dir, skip)) entries.push({ path: `${key}/${file}`, source: join(dir, file) });
  }
  return entries;
}

/** Collects the zip's entries from the repository and the compiled output in `distDir`. */
function collect(distDir: string): Entry[] {
  const [major] = process.versions.node.split('.');
  if (process.platform !== TARGET.platform || process.arch !== TARGET.arch || major !== TARGET.nodeMajor) {
    throw new PackageError(
      `the package carries native modules for this machine (${process.platform}-${process.arch}, Node ${process.versions.node}); ` +
        `build it on ${TARGET.platform}-${TARGET.arch} with Node ${TARGET.nodeMajor}, the platform Azure runs`,
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

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// Fixed timestamps (1980-01-01 00:00, the DOS epoch) and sorted entries: the same input gives the same zip.
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1;
const UTF8_NAMES = 0x0800;
const MADE_BY_UNIX = (3 << 8) | 20;
// Without ZIP64 records a zip holds at most 65,535 entries and 4 GiB; past that it would be corrupt.
const ZIP_LIMIT = 0xffffffff;

/** Writes a ZIP archive (deflate, CRC-32, Unix modes, directory entries) to `out`. */
function writeZip(out: string, entries: Entry[]): { files: number; bytes: number } {
  const dirs = new Set<string>();
  for (const e of entries) {
    for (let i = e.path.indexOf('/'); i > 0; i = e.path.indexOf('/', i + 1)) dirs.add(e.path.slice(0, i + 1));
  }
  const items = [...[...dirs].map((path) => ({ path, source: Buffer.alloc(0) })), ...entries].sort((a, b) =>
    a.path < b.path ? -1 : 1,
  );
  if (items.length > 0xffff) throw new PackageError(`${items.length} entries exceed the ZIP limit of 65,535`);
  const central: Buffer[] = [];
  const partial = `${out}.partial`;
  mkdirSync(dirname(out), { recursive: true });
  const fd = openSync(partial, 'w');
  let offset = 0;
  try {
    for (const item of items) {
      const isDir = item.path.endsWith('/');
      const data = typeof item.source === 'string' ? readFileSync(item.source) : item.source;
      const mode = isDir
        ? 0o40755
        : typeof item.source === 'string' && statSync(item.source).mode & 0o111
          ? 0o100755
          : 0o100644;
      const deflated = data.length > 0 ? deflateRawSync(data) : data;
      const stored = deflated.length >= data.length;
      const body = stored ? data : deflated;
      const name = Buffer.from(item.path, 'utf8');
      const crc = crc32(data);
      if (offset + 30 + name.length + body.length > ZIP_LIMIT)
        throw new PackageError('the zip would pass 4 GiB');
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(UTF8_NAMES, 6);
      local.writeUInt16LE(stored ? 0 : 8, 8);
      local.writeUInt16LE(DOS_TIME, 10);
      local.writeUInt16LE(DOS_DATE, 12);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(body.length, 18);
      local.writeUInt32LE(data.length, 22);
      local.writeUInt16LE(name.length, 26);
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(MADE_BY_UNIX, 4);
      local.copy(header, 6, 4, 28);
      header.writeUInt32LE(((mode << 16) | (isDir ? 0x10 : 0)) >>> 0, 38);
      header.writeUInt32LE(offset, 42);
      central.push(header, name);
      for (const chunk of [local, name, body]) offset += writeSync(fd, chunk);
    }
    const directory = Buffer.concat(central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(items.length, 8);
    end.writeUInt16LE(items.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    writeSync(fd, directory);
    writeSync(fd, end);
    offset += directory.length + end.length;
  } finally {
    closeSync(fd);
  }
  renameSync(partial, out);
  return { files: entries.length, bytes: offset };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      dist: { type: 'string', default: 'dist' },
      out: { type: 'string', default: '.tmp/kubescribe.zip' },
    },
  });
  const out = resolve(ROOT, values.out);
  const { files, bytes } = writeZip(out, collect(resolve(ROOT, values.dist)));
  process.stdout.write(
    `${relative(process.cwd(), out) || out}: ${files} files, ${(bytes / 2 ** 20).toFixed(1)} MiB\n`,
  );
}

try {
  main();
} catch (error) {
  process.stderr.write(`package: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
