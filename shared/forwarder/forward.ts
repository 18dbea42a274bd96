import type { ForwarderConfig } from './config';
import { fileCursorStore } from './cursor-file';
import type { KubeConnection } from './kube-reads';
import type { SnapshotProgress } from './progress';
import { type Delay, type ForwarderLog, realDelay } from './runtime';
import { runScopeSession } from './scope-session';
import { watchScopes } from './scopes';
import { createWebhook } from './webhook';

/**
 * Forwards the configured types of one cluster to one kubescribe target until `signal` aborts (or,
 * with `once`, until each scope has posted one snapshot). Rejects with the first error no retry can
 * cure (kubescribe refusing a body), after stopping the other scopes.
 * @param delay waits between retries and batches (default: real timers); tests inject their own
 * @param random jitter source in [0, 1) (default Math.random)
 * @example await runForwarder({ config, connection, token, log, progress, signal: controller.signal })
 */
export async function runForwarder({
  config,
  connection,
  token,
  log,
  progress,
  signal,
  once = false,
  delay = realDelay,
  random = Math.random,
}: {
  config: ForwarderConfig;
  connection: KubeConnection;
  token: string | undefined;
  log: ForwarderLog;
  progress: SnapshotProgress;
  signal: AbortSignal;
  once?: boolean;
  delay?: Delay;
  random?: () => number;
}): Promise<void> {
  const stopOthers = new AbortController();
  const all = AbortSignal.any([signal, stopOthers.signal]);
  const webhook = createWebhook({ ...config.kubescribe, token, delay, random, log, signal: all });
  const deps = {
    connection,
    webhook,
    cursors: fileCursorStore(config.cursorFile),
    config,
    delay,
    random,
    log,
    progress,
    signal: all,
    capabilities: { watchList: undefined },
  };
  await Promise.all(
    watchScopes(config).map((scope) =>
      runScopeSession(deps, scope, once).catch((error: unknown) => {
        stopOthers.abort();
        throw error;
      }),
    ),
  );
}
