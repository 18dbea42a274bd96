import { ensureError } from '../errors';
import { backoffDelayMs } from './backoff';
import type { ForwarderConfig } from './config';
import type { CursorStore } from './cursor-file';
import { ForwardGaveUp, KubeReadFailed, WebhookRejected } from './errors';
import { followChanges, type Position, watchError } from './follow-changes';
import { type KubeConnection, listPages, type WatchEvent, watchEvents } from './kube-reads';
import type { SnapshotProgress } from './progress';
import type { Delay, ForwarderLog } from './runtime';
import { scopeKey, type WatchScope } from './scopes';
import { SnapshotUpload } from './snapshot';
import type { Webhook } from './webhook';

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** What every scope session shares. `watchList` is learned once: does the server stream initial events? */
export interface SessionDeps {
  connection: KubeConnection;
  webhook: Webhook;
  cursors: CursorStore;
  config: ForwarderConfig;
  delay: Delay;
  random: () => number;
  log: ForwarderLog;
  progress: SnapshotProgress;
  signal: AbortSignal;
  capabilities: { watchList: boolean | undefined };
}

/** How many failed attempts in a row `--once` makes before it gives up (about a minute of backoff). */
export const ONCE_MAX_ATTEMPTS = 6;

/**
 * Runs one scope until `signal` aborts (or, with `once`, until one snapshot is completed): a
 * snapshot when there is no cursor, then live changes from the cursor; a 410 clears the cursor and
 * snapshots again; other failures reconnect from the cursor after a jittered backoff. A body that
 * kubescribe refuses (`WebhookRejected`) ends the session with that error.
 */
export async function runScopeSession(deps: SessionDeps, scope: WatchScope, once: boolean): Promise<void> {
  const { cursors, log, signal } = deps;
  const key = scopeKey(scope);
  const stored = once ? undefined : await cursors.read(key);
  const position: Position & { known: boolean } = {
    cursor: stored ?? '',
    known: stored !== undefined,
    async save(resourceVersion) {
      await cursors.write(key, resourceVersion);
      position.cursor = resourceVersion;
      position.known = true;
    },
  };
  let failures = 0;
  while (!signal.aborted) {
    // Each attempt owns its watch connection: leaving the attempt (by error or end) closes it.
    const attempt = new AbortController();
    const attemptSignal = AbortSignal.any([signal, attempt.signal]);
    try {
      let stream: AsyncGenerator<WatchEvent> | undefined;
      if (!position.known) {
        const taken = await takeSnapshot({ ...deps, signal: attemptSignal }, scope, key);
        await position.save(taken.revision);
        failures = 0;
        if (once) return;
        stream = taken.stream;
      }
      stream ??= watchEvents(deps.connection, scope, { resourceVersion: position.cursor }, attemptSignal);
      const received = await followChanges({
        ...deps,
        stream,
        scope,
        scopeName: key,
        position,
        settings: deps.config,
        signal: attemptSignal,
      });
      // A server (or proxy) that ends every watch at once would otherwise be reconnected in a hot loop.
      const waitMs = received === 0 ? backoffDelayMs(failures++, deps.random) : 0;
      if (received > 0) failures = 0;
      log('WatchEnded', { scope: key, resourceVersion: position.cursor, received, waitMs });
      if (waitMs > 0) await deps.delay(waitMs, signal).catch(() => {});
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof WebhookRejected) throw error;
      if (error instanceof KubeReadFailed && error.expired) {
        // The history behind the cursor is gone: only a fresh snapshot (with its sweep) can be trusted.
        log('WatchExpired', { scope: key, resourceVersion: position.cursor });
        await cursors.clear(key);
        position.known = false;
        continue;
      }
      const message = ensureError(error).message;
      if (once && failures + 1 >= ONCE_MAX_ATTEMPTS) throw new ForwardGaveUp(key, failures + 1, message);
      const waitMs = backoffDelayMs(failures++, deps.random);
      log('WatchFailed', { scope: key, waitMs, message });
      await deps.delay(waitMs, signal).catch(() => {});
    } finally {
      attempt.abort();
    }
  }
}

/**
 * Posts a complete snapshot of the scope and returns its revision: by a streaming list
 * (`sendInitialEvents`, whose stream then carries on with live changes) when the server supports
 * it, else by a paged LIST (the caller then watches from its revision).
 */
async function takeSnapshot(
  deps: SessionDeps,
  scope: WatchScope,
  key: string,
): Promise<{ revision: string; stream?: AsyncGenerator<WatchEvent> }> {
  const { connection, webhook, config, log, progress, signal, capabilities } = deps;
  log('SnapshotStarted', { scope: key });
  const upload = new SnapshotUpload(webhook, scope, key, config.snapshot, progress);
  if (capabilities.watchList !== false) {
    const stream = watchEvents(
      connection,
      scope,
      { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' },
      signal,
    );
    try {
      for (;;) {
        const next = await stream.next();
        if (next.done) throw new Error(`the watch of ${key} ended before its initial events did`);
        const { type, object } = next.value;
        if (type === 'ERROR') throw watchError(object, key);
        if (type === 'ADDED') await upload.add(object);
        if (type === 'BOOKMARK' && object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
          const revision = object.metadata.resourceVersion ?? '';
          const objects = await upload.complete(revision);
          capabilities.watchList = true;
          log('SnapshotCompleted', { scope: key, objects, revision, by: 'streaming-list' });
          return { revision, stream };
        }
      }
    } catch (error) {
      const refused =
        error instanceof KubeReadFailed && !error.expired && error.message.includes('sendInitialEvents');
      if (!refused || capabilities.watchList === true) throw error;
      capabilities.watchList = false;
      log('StreamingListUnsupported', { scope: key });
    }
  }
  let revision: string | undefined;
  let listed = 0;
  for await (const page of listPages(connection, scope, config.snapshot.listPageSize, signal)) {
    // Every page of one list reports the first page's revision; the snapshot is pinned to it.
    revision ??= page.resourceVersion;
    const total =
      page.remainingItemCount === undefined
        ? undefined
        : listed + page.items.length + page.remainingItemCount;
    for (const item of page.items) await upload.add(item, total);
    listed += page.items.length;
  }
  const pinned = revision ?? '';
  const objects = await upload.complete(pinned);
  log('SnapshotCompleted', { scope: key, objects, revision: pinned, by: 'list' });
  return { revision: pinned };
}
