import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';
import type { GitServerAuth } from '../../support/git/serve-git-http';
import { type FaultProxy, type GitHostMode, startFaultProxy } from '../../support/git/start-fault-proxy';
import { startGitServer } from '../../support/git/start-git-server';

export type GitWorld = {
  root: string;
  serverUrl: string;
  proxy: FaultProxy;
  /** A fresh bare repository behind the proxy: its http URL (through the proxy) and its path. */
  repo(
    args?: Omit<Parameters<typeof createBareRepo>[0], 'root' | 'name'>,
  ): Promise<{ url: string; gitdir: string }>;
  cacheDir(): Promise<string>;
  stop(): Promise<void>;
};

let seq = 0;

/** How many pull request refs a GitHub-like repository carries: enough to show in a full listing. */
export const PULL_REFS = 200;

/**
 * One loopback `git http-backend` server process, a fault proxy in front of it behaving as `host`,
 * and a temp root. Repositories are shaped as the host keeps them: a GitHub one carries pull request
 * refs, and a GitLab one is configured by its URL without `.git`.
 */
export async function startGitWorld({
  auth,
  host = 'http-backend',
  authorize,
  tls,
}: {
  auth?: GitServerAuth;
  /** The proxy serves https with this key and certificate. */
  tls?: { key: string; cert: string };
  host?: GitHostMode;
  /** The proxy checks credentials (see `startFaultProxy`). */
  authorize?: (authorization: string | undefined) => boolean;
} = {}): Promise<GitWorld> {
  const root = await mkdtemp(join(tmpdir(), 'kubescribe-git-'));
  const server = await startGitServer({ root, ...(auth ? { auth } : {}) });
  const proxy = await startFaultProxy({
    upstream: server.url,
    host,
    ...(authorize ? { authorize } : {}),
    ...(tls ? { tls } : {}),
  });
  return {
    root,
    serverUrl: server.url,
    proxy,
    async repo(args = {}) {
      const name = `r${++seq}.git`;
      const gitdir = await createBareRepo({ root, name, ...args });
      if (host === 'github' && args.files) {
        const head = await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'HEAD'] });
        const refs = Array.from({ length: PULL_REFS }, (_, i) => `create refs/pull/${i + 1}/head ${head}\n`);
        await runGit({ args: ['--git-dir', gitdir, 'update-ref', '--stdin'], input: refs.join('') });
      }
      return { url: `${proxy.url}/${host === 'gitlab' ? name.replace(/\.git$/, '') : name}`, gitdir };
    },
    cacheDir: () => mkdtemp(join(root, 'cache-')),
    async stop() {
      await proxy.stop();
      await server.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** `git log` of a branch in a bare repository: one `<sha> <subject>` line per commit, newest first. */
export const logOf = (gitdir: string, branch = 'main') =>
  runGit({ args: ['--git-dir', gitdir, 'log', '--format=%H %s', branch] }).then((out) => out.split('\n'));

export const showFile = (gitdir: string, rev: string, path: string) =>
  runGit({ args: ['--git-dir', gitdir, 'show', `${rev}:${path}`] });

export const fsck = (gitdir: string) =>
  runGit({ args: ['--git-dir', gitdir, 'fsck', '--strict', '--no-progress'] });
