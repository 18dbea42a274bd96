import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit } from './run-git';

/**
 * Creates the bare repository `<root>/<name>` with HEAD on `branch`; when `files` are given, one
 * commit holding them (written with `git fast-import`) starts `branch`. Returns its path.
 */
export async function createBareRepo({
  root,
  name,
  branch = 'main',
  files,
  preReceive,
  postReceive,
}: {
  root: string;
  name: string;
  branch?: string;
  files?: Record<string, string>;
  /** A pre-receive hook script (e.g. `echo "GH006: Protected branch" >&2; exit 1`). */
  preReceive?: string;
  /** A post-receive hook script: receive-pack runs it after its report, before its answer ends. */
  postReceive?: string;
}): Promise<string> {
  const gitdir = join(root, name);
  await runGit({ args: ['init', '-q', '--bare', '-b', branch, gitdir] });
  if (files && Object.keys(files).length > 0) {
    const parts = [
      `commit refs/heads/${branch}\ncommitter seed <seed@example.invalid> 1700000000 +0000\ndata 5\nseed\n`,
    ];
    for (const [path, content] of Object.entries(files)) {
      parts.push(`M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    }
    await runGit({ args: ['--git-dir', gitdir, 'fast-import', '--quiet'], input: `${parts.join('')}\n` });
  }
  for (const [name, script] of [
    ['pre-receive', preReceive],
    ['post-receive', postReceive],
  ] as const) {
    if (!script) continue;
    const hook = join(gitdir, 'hooks', name);
    await writeFile(hook, `#!/bin/sh\n${script}\n`);
    await chmod(hook, 0o755);
  }
  return gitdir;
}
