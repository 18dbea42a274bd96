import * as fs from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import type * as Git from 'isomorphic-git';

/**
 * Creates an empty bare repository at `path` when nothing is there: the default configuration of
 * `npm start` publishes to a local repository in the data folder, which must exist first.
 */
export async function initBareRepositoryIfMissing(path: string): Promise<void> {
  if (!path.startsWith('/')) return;
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (exists) return;
  await mkdir(path, { recursive: true });
  // loaded here, once, rather than with the runtime every HTTP trigger builds
  const git: typeof Git = require('isomorphic-git');
  await git.init({ fs, dir: path, gitdir: path, bare: true, defaultBranch: 'main' });
}
