import * as fs from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Git from 'isomorphic-git';
import {
  ConfigInvalid,
  type ConfigIssue,
  describeConfigOrigin,
  isRemoteUrl,
  type LoadedConfig,
} from '../../config';

/**
 * Checks at start every repository the configuration gives as a local path: it must be a bare
 * repository, or be created empty (a bare repository on branch `main`) when `createIfMissing` says
 * so. Otherwise the mistake would surface only later, as a failing publication in a status. Throws
 * `ConfigInvalid` listing every repository that is wrong.
 * @param refuse false: only create the missing `createIfMissing` ones. The app's runtime does that:
 *   a folder that goes missing after start is Git being down, which publication waits out.
 */
export async function prepareLocalRepositories(
  loaded: Pick<LoadedConfig, 'config' | 'origin'>,
  { refuse = true }: { refuse?: boolean } = {},
): Promise<void> {
  const issues: ConfigIssue[] = [];
  for (const [index, repository] of loaded.config.repositories.entries()) {
    if (isRemoteUrl(repository.url)) continue;
    const message = await checkLocalRepository(repository.url, repository.createIfMissing);
    if (message !== undefined) issues.push({ path: `repositories[${index}].url`, message });
  }
  if (refuse && issues.length > 0) throw new ConfigInvalid(describeConfigOrigin(loaded.origin), issues);
}

async function checkLocalRepository(path: string, createIfMissing: boolean): Promise<string | undefined> {
  if (!(await exists(path))) {
    if (!createIfMissing) {
      return `names ${path}, which does not exist: create it with "git init --bare ${path}", or set createIfMissing: true`;
    }
    await mkdir(path, { recursive: true });
    // loaded here, once, rather than with the runtime every HTTP trigger builds
    const git: typeof Git = require('isomorphic-git');
    await git.init({ fs, dir: path, gitdir: path, bare: true, defaultBranch: 'main' });
    return undefined;
  }
  if ((await exists(join(path, 'HEAD'))) && (await exists(join(path, 'objects')))) return undefined;
  if (await exists(join(path, '.git'))) {
    return `names ${path}, a working copy: name a bare repository (git clone --bare) instead`;
  }
  return `names ${path}, which is not a Git repository`;
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
