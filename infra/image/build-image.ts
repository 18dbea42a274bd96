// `npm run image` (after `npm run build`): builds the kubescribe image with buildah.
//   node --import tsx infra/image/build-image.ts [--tag kubescribe:<version>]
// 1. the base: Node 22 LTS and its libraries (node-base.ts), unless the store has it;
// 2. the build context, staged in .tmp/image-context: the app's files (infra/app-files.ts: compiled
//    JavaScript, production dependencies, host.json, package.json), the entrypoint and .dockerignore;
// 3. `buildah build` of the Dockerfile on that context, FROM the base.
// Push it elsewhere with `buildah push kubescribe:<version> docker-archive:kubescribe.tar` (docs/run-in-kubernetes.md).
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { collect } from '../app-files';
import { buildah, ensureBuildah } from './buildah';
import { ensureNodeBase } from './node-base';

const ROOT = resolve(__dirname, '..', '..');

/** The image's default name: `kubescribe:<package.json version>`. */
export function defaultImageTag(): string {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return `kubescribe:${version}`;
}

/** Writes the build context into `dir` (emptied first); returns the native modules it holds. */
function stageContext(dir: string): string[] {
  rmSync(dir, { recursive: true, force: true });
  const entries = collect(join(ROOT, 'dist'));
  const native: string[] = [];
  for (const entry of entries) {
    const target = join(dir, entry.path);
    mkdirSync(dirname(target), { recursive: true });
    if (typeof entry.source === 'string') {
      copyFileSync(entry.source, target);
      chmodSync(target, statSync(entry.source).mode & 0o755);
      if (entry.path.endsWith('.node')) native.push(entry.source);
    } else {
      writeFileSync(target, entry.source);
    }
  }
  mkdirSync(join(dir, 'bin'), { recursive: true });
  copyFileSync(join(ROOT, 'bin', 'kubescribe.js'), join(dir, 'bin', 'kubescribe.js'));
  copyFileSync(join(__dirname, 'entrypoint.js'), join(dir, 'entrypoint.js'));
  copyFileSync(join(ROOT, '.dockerignore'), join(dir, '.dockerignore'));
  return native;
}

/** Builds the image `tag` and returns its id. */
export function buildImage({ tag = defaultImageTag() }: { tag?: string } = {}): string {
  ensureBuildah();
  const workDir = join(ROOT, '.tmp');
  const context = join(workDir, 'image-context');
  const native = stageContext(context);
  const base = ensureNodeBase({ workDir, nativeModules: native });
  buildah(
    [
      'build',
      '--isolation',
      'chroot',
      '--layers=false',
      '--build-arg',
      `BASE=${base}`,
      '--file',
      join(ROOT, 'Dockerfile'),
      '--tag',
      tag,
      context,
    ],
    { inherit: true },
  );
  // The tag moved to the new image; on vfs every old one is a full copy of its file system.
  buildah(['rmi', '--prune']);
  return buildah(['inspect', '--type', 'image', '--format', '{{.FromImageID}}', tag]);
}

function main(): void {
  const { values } = parseArgs({ options: { tag: { type: 'string' } } });
  const started = Date.now();
  const tag = values.tag ?? defaultImageTag();
  const id = buildImage({ tag });
  process.stdout.write(
    `${tag} (${id.slice(0, 12)}) built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`image: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
