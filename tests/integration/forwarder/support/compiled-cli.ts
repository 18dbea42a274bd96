import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO = resolve(__dirname, '../../../..');
const run = promisify(execFile);

/** The package laid out as after `npm run build`: `bin/kubescribe.js` next to `dist/`, in a temp folder. */
export interface CompiledCli {
  dir: string;
  /** Runs `node bin/kubescribe.js ...args` to its exit, with `env` added to a minimal environment. */
  run(
    args: string[],
    env?: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  remove(): Promise<void>;
}

/**
 * Compiles the forwarder CLI with the project's own tsconfig (module node16, so the `import()` of the
 * ESM-only client-node stays a real dynamic import, which jest cannot run) and copies the launcher.
 */
export async function compileCli(): Promise<CompiledCli> {
  const dir = await mkdtemp(join(tmpdir(), 'kubescribe-cli-'));
  const tsconfig = join(dir, 'tsconfig.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(REPO, 'tsconfig.json'),
      compilerOptions: {
        rootDir: REPO,
        outDir: join(dir, 'dist'),
        sourceMap: false,
        types: ['node'],
        typeRoots: [join(REPO, 'node_modules/@types')],
      },
      files: [join(REPO, 'shared/forwarder/cli.ts')],
      include: [],
    }),
  );
  await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', tsconfig, '--noCheck']);
  await mkdir(join(dir, 'bin'));
  await copyFile(join(REPO, 'bin/kubescribe.js'), join(dir, 'bin/kubescribe.js'));
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    run: (args, env = {}) =>
      new Promise((resolveRun) => {
        execFile(
          process.execPath,
          [join(dir, 'bin/kubescribe.js'), ...args],
          { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, timeout: 60_000 },
          (error, stdout, stderr) => {
            const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
            resolveRun({ code, stdout, stderr });
          },
        );
      }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
