import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { ProjectionResult, projectSaveStatus } from '../../../../shared/kube/project-save-status';

const REPO = resolve(__dirname, '../../../..');
const RUNNER = 'tests/integration/kube/support/projection-runner.ts';

export type ProjectionAnswer = { result: ProjectionResult } | { thrown: { name: string; message: string } };

export interface ProjectionProcess {
  project(args: Parameters<typeof projectSaveStatus>[0]): Promise<ProjectionAnswer>;
  stop(): Promise<void>;
}

/**
 * Compiles the projection with the project's own tsconfig (module node16, so `import()` of the
 * ESM-only client stays a real dynamic import) into a temp folder and starts it as a child process.
 */
export async function startProjectionProcess(): Promise<ProjectionProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'kubescribe-kube-'));
  const outDir = join(dir, 'dist');
  const tsconfig = join(dir, 'tsconfig.json');
  await writeFile(
    tsconfig,
    JSON.stringify({
      extends: join(REPO, 'tsconfig.json'),
      compilerOptions: {
        rootDir: REPO,
        outDir,
        sourceMap: false,
        types: ['node'],
        typeRoots: [join(REPO, 'node_modules/@types')],
      },
      files: [join(REPO, RUNNER)],
      include: [],
    }),
  );
  try {
    // Types are checked by `npm run typecheck`; this only emits, as the build would.
    await promisify(execFile)(process.execPath, [
      join(REPO, 'node_modules/typescript/bin/tsc'),
      '-p',
      tsconfig,
      '--noCheck',
    ]);
    // The compiled files resolve packages from the repository's node_modules, as dist/ does.
    await symlink(join(REPO, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [join(outDir, RUNNER.replace(/\.ts$/, '.js'))],
    {
      stdio: 'pipe',
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const waiting = new Map<
    number,
    { resolve: (answer: ProjectionAnswer) => void; reject: (error: Error) => void }
  >();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const { id, ...answer } = JSON.parse(line) as { id: number } & ProjectionAnswer;
    waiting.get(id)?.resolve(answer);
    waiting.delete(id);
  });
  const exited = new Promise<void>((resolveExit) =>
    child.on('exit', () => {
      for (const { reject } of waiting.values())
        reject(new Error(`the projection process exited: ${stderr}`));
      waiting.clear();
      resolveExit();
    }),
  );
  let next = 0;

  return {
    project: (args) =>
      new Promise((resolveAnswer, reject) => {
        if (child.exitCode !== null) {
          reject(new Error(`the projection process exited: ${stderr}`));
          return;
        }
        next += 1;
        waiting.set(next, { resolve: resolveAnswer, reject });
        child.stdin.write(`${JSON.stringify({ id: next, args })}\n`);
      }),
    stop: async () => {
      child.stdin.end();
      if (child.exitCode === null) child.kill();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
