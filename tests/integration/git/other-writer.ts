import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit } from '../../support/git/run-git';

/** Another writer using the `git` CLI: clones `url` once, then commits and pushes one file per call. */
export async function otherWriter({
  url,
  root,
  branch = 'main',
}: {
  url: string;
  root: string;
  branch?: string;
}) {
  const dir = await mkdtemp(join(root, 'other-'));
  await runGit({ args: ['clone', '-q', '-b', branch, url, dir] });
  let n = 0;
  /** Commits one file and pushes; with `rewrite`, amends the tip instead and force-pushes (the old tip becomes unreachable). */
  return async function pushOne({ rewrite = false }: { rewrite?: boolean } = {}): Promise<string> {
    n++;
    await runGit({ args: ['fetch', '-q', 'origin', branch], cwd: dir });
    await runGit({ args: ['reset', '-q', '--hard', `origin/${branch}`], cwd: dir });
    await writeFile(join(dir, `other-${n}.yaml`), `n: ${n}\n`);
    await runGit({ args: ['add', '.'], cwd: dir });
    await runGit({
      args: ['commit', '-q', ...(rewrite ? ['--amend'] : []), '-m', `other writer ${n}`],
      cwd: dir,
    });
    await runGit({ args: ['push', '-q', ...(rewrite ? ['--force'] : []), 'origin', branch], cwd: dir });
    return runGit({ args: ['rev-parse', 'HEAD'], cwd: dir });
  };
}
