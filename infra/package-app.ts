// Builds the Azure package (`npm run package`):
//   node --import tsx infra/package-app.ts [--out .tmp/kubescribe.zip]
// The zip holds the bundled app (infra/azure-bundle.ts), host.json and a package.json naming the
// bundle as `main`, and nothing else. The image's build context is another thing (infra/app-files.ts).
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { type Entry, PackageError } from './app-files';
import { AZURE_ENTRY, bundleAzureApp } from './azure-bundle';

const ROOT = resolve(__dirname, '..');

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

/** package.json fields the package keeps: what names the app. The bundle needs no dependencies installed. */
const MANIFEST_FIELDS = ['name', 'version', 'description', 'license', 'private'];

/** The package.json of the Azure package: the app's names, and the bundle as the entry the worker loads. */
function manifest(): Buffer {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const kept = Object.fromEntries(Object.entries(pkg).filter(([field]) => MANIFEST_FIELDS.includes(field)));
  return Buffer.from(`${JSON.stringify({ ...kept, main: AZURE_ENTRY }, null, 2)}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: '.tmp/kubescribe.zip' } } });
  const out = resolve(ROOT, values.out);
  const bundle = await bundleAzureApp();
  const { files, bytes } = writeZip(out, [
    { path: 'host.json', source: join(ROOT, 'host.json') },
    { path: 'package.json', source: manifest() },
    ...bundle.files,
  ]);
  process.stdout.write(
    `${relative(process.cwd(), out) || out}: ${files} files, ${(bytes / 2 ** 20).toFixed(1)} MiB\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`package: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
