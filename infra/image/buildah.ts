// buildah as this project runs it: Debian's package, as root, vfs storage (no overlay or fuse needed)
// and chroot isolation (no user namespaces or runc needed), which is what a CI container allows.
import { execFileSync, spawnSync } from 'node:child_process';
import { KubescribeError } from '../../shared/errors';

/** buildah is missing or one of its commands failed; the message says which and why. */
export class ImageBuildFailed extends KubescribeError<{ problem: string }> {
  static readonly code = 'ImageBuildFailed';
  readonly code = ImageBuildFailed.code;
  constructor(problem: string) {
    super(problem, { problem });
  }
}

/** Flags every buildah call takes, so that all of them see the same image store. */
const GLOBAL_FLAGS = ['--storage-driver', 'vfs'];

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Installs Debian's buildah when it is missing (needs root and apt). */
export function ensureBuildah(): void {
  if (has('buildah')) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '-qq', 'buildah'], { stdio: 'inherit', env });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    install();
  }
  if (!has('buildah'))
    throw new ImageBuildFailed('buildah is not installed and apt-get could not install it');
}

/**
 * Runs `buildah <args>` and returns its standard output (trimmed); `inherit` streams it instead
 * (a build's progress). Throws `ImageBuildFailed` with buildah's own message.
 */
export function buildah(args: string[], { inherit = false }: { inherit?: boolean } = {}): string {
  const result = spawnSync('buildah', [...GLOBAL_FLAGS, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', inherit ? 'inherit' : 'pipe', inherit ? 'inherit' : 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw new ImageBuildFailed(`buildah ${args[0]}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new ImageBuildFailed(
      `buildah ${args[0]} failed (exit ${result.status}): ${(result.stderr ?? '').trim()}`,
    );
  }
  return (result.stdout ?? '').trim();
}

/** Whether the local store holds an image by this name. */
export function hasImage(name: string): boolean {
  return (
    spawnSync('buildah', [...GLOBAL_FLAGS, 'inspect', '--type', 'image', name], { stdio: 'ignore' })
      .status === 0
  );
}
