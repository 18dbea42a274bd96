import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCommit } from '../../../shared/git/checked-objects';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';

// The check that an object cache holds a branch's tip reads the commit once, without parsing it
// (checked-objects.ts): what parsing it refused must still be refused.

it('holds a tip that is a commit, and refuses an id that names another kind of object', async () => {
  const gitdir = await createBareRepo({
    root: await mkdtemp(join(tmpdir(), 'check-commit-')),
    name: 'c.git',
    files: { 'a.yaml': 'a\n' },
  });
  await runGit({ args: ['--git-dir', gitdir, 'repack', '-adq'] });
  const rev = async (name: string) =>
    (await runGit({ args: ['--git-dir', gitdir, 'rev-parse', name] })).trim();

  await expect(checkCommit(gitdir, await rev('main'), {})).resolves.toBeUndefined();
  await expect(checkCommit(gitdir, await rev('main^{tree}'), {})).rejects.toThrow('is a tree, not a commit');
  await expect(checkCommit(gitdir, '0'.repeat(40), {})).rejects.toThrow();
});
