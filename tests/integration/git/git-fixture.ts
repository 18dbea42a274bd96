import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';
import type { GitServerAuth } from '../../support/git/serve-git-http';
import { type FaultProxy, startFaultProxy } from '../../support/git/start-fault-proxy';
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

/** One loopback `git http-backend` server process, a fault proxy in front of it, and a temp root. */
export async function startGitWorld({ auth }: { auth?: GitServerAuth } = {}): Promise<GitWorld> {
  const root = await mkdtemp(join(tmpdir(), 'kubescribe-git-'));
  const server = await startGitServer({ root, ...(auth ? { auth } : {}) });
  const proxy = await startFaultProxy({ upstream: server.url });
  return {
    root,
    serverUrl: server.url,
    proxy,
    async repo(args = {}) {
      const name = `r${++seq}.git`;
      const gitdir = await createBareRepo({ root, name, ...args });
      return { url: `${proxy.url}/${name}`, gitdir };
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
