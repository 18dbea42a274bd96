import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBareRepo } from './create-bare-repo';
import { type FaultProxy, startFaultProxy } from './start-fault-proxy';
import { startGitServer } from './start-git-server';

/** A bare repository served by a real `git http-backend`, reached through a fault proxy. */
export interface ProxiedRemote {
  /** The bare repository's folder, for checking results with the `git` CLI. */
  remote: string;
  /** Its smart-HTTP URL through the proxy: what kubescribe is configured with. */
  url: string;
  proxy: FaultProxy;
  stop(): Promise<void>;
}

/**
 * Starts a seeded bare repository behind `git http-backend` (its own process) and a fault proxy.
 * @example const git = await startProxiedRemote(); ... git.proxy.inject({ on: 'push', fault: { kind: 'stall' } });
 */
export async function startProxiedRemote({
  name = 'state.git',
  files = { 'README.md': 'cluster state\n' },
}: {
  name?: string;
  files?: Record<string, string>;
} = {}): Promise<ProxiedRemote> {
  const root = mkdtempSync(join(tmpdir(), 'ks-remote-'));
  const remote = await createBareRepo({ root, name, files });
  const server = await startGitServer({ root });
  const proxy = await startFaultProxy({ upstream: server.url });
  return {
    remote,
    url: `${proxy.url}/${name}`,
    proxy,
    async stop() {
      await proxy.stop();
      await server.stop();
    },
  };
}
