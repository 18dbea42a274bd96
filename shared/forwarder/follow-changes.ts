import { stringifyExactJson } from '../json/exact-json';
import { exclusionCheck, latestFieldManager } from '../resources/exclusion';
import type { ForwarderConfig } from './config';
import { KubeReadFailed } from './errors';
import { forwardedObject } from './forwarded-object';
import type { KubeObject, WatchEvent } from './kube-reads';
import type { Delay, ForwarderLog } from './runtime';
import type { WatchScope } from './scopes';
import type { Webhook } from './webhook';

/** The scope's acknowledged position: the resourceVersion up to which kubescribe answered 2xx. */
export interface Position {
  cursor: string;
  save(resourceVersion: string): Promise<void>;
}

/** A watch ERROR event as a typed failure (a 410 Status means the cursor expired). */
export function watchError(object: KubeObject, path: string): KubeReadFailed {
  const code = typeof object.code === 'number' ? object.code : 0;
  return new KubeReadFailed(
    `the watch of ${path} failed with ${code}: ${String(object.message ?? '').slice(0, 512)}`,
    {
      status: code,
      reason: String(object.reason ?? ''),
      path,
    },
  );
}

type PostedEvent = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; resource: string; object: KubeObject };

/**
 * Forwards a watch stream's live events in batches, each posted when it reaches `maxEvents` or
 * `maxBytes`, or `maxDelay` after its first event. The cursor moves only after a 2xx: to the last
 * posted event, or to a BOOKMARK's (or an excluded event's) version when nothing is waiting. While a
 * post waits (a 429), the stream is not read. Returns how many events the stream carried when the
 * server ends it; throws on an ERROR event (410: the caller snapshots again).
 */
export async function followChanges({
  stream,
  scope,
  scopeName,
  position,
  webhook,
  settings,
  delay,
  log,
  signal,
}: {
  stream: AsyncGenerator<WatchEvent>;
  scope: WatchScope;
  scopeName: string;
  position: Position;
  webhook: Webhook;
  settings: Pick<ForwarderConfig, 'batch' | 'exclude'>;
  delay: Delay;
  log: ForwarderLog;
  signal: AbortSignal;
}): Promise<number> {
  const { maxEvents, maxBytes, maxDelay } = settings.batch;
  // The service's rule (shared/resources/exclusion.ts): the same latest managedFields entry, the same patterns.
  const excluded = exclusionCheck([
    {
      rule: { users: [], groups: [], fieldManagers: settings.exclude.fieldManagers, userAgents: [] },
      from: 'the forwarder',
    },
  ]);
  let batch: PostedEvent[] = [];
  let bytes = 0;
  let seen: string | undefined;
  let flushTimer: Promise<'flush'> | undefined;

  const flush = async () => {
    flushTimer = undefined;
    if (batch.length > 0) {
      const events = batch;
      batch = [];
      bytes = 0;
      await webhook.post('/events', { events });
      log('EventsPosted', { scope: scopeName, events: events.length, resourceVersion: seen });
    }
    if (seen !== undefined && seen !== position.cursor) await position.save(seen);
  };

  let received = 0;
  let next: Promise<IteratorResult<WatchEvent>> | undefined;
  try {
    for (;;) {
      next ??= stream.next();
      const step = flushTimer === undefined ? await next : await Promise.race([next, flushTimer]);
      if (step === 'flush') {
        await flush();
        continue;
      }
      next = undefined;
      if (step.done) {
        await flush();
        return received;
      }
      received += 1;
      const { type, object } = step.value;
      const resourceVersion = object.metadata?.resourceVersion;
      if (type === 'ERROR') {
        await flush();
        throw watchError(object, scopeName);
      }
      if (type === 'BOOKMARK') {
        if (resourceVersion) seen = resourceVersion;
        if (batch.length === 0) await flush();
        continue;
      }
      const manager = type === 'DELETED' ? undefined : latestFieldManager(object);
      if (manager !== undefined && excluded?.({ users: [], groups: [], fieldManager: manager })) {
        log('EventsExcluded', { scope: scopeName, manager, resourceVersion });
        if (resourceVersion) seen = resourceVersion;
        if (batch.length === 0) await flush();
        continue;
      }
      const entry: PostedEvent = { type, resource: scope.resource, object: forwardedObject(object) };
      const size = stringifyExactJson(entry).length;
      if (batch.length > 0 && bytes + size > maxBytes) await flush();
      batch.push(entry);
      bytes += size;
      if (resourceVersion) seen = resourceVersion;
      if (batch.length >= maxEvents) await flush();
      else
        flushTimer ??= delay(maxDelay, signal).then(
          () => 'flush' as const,
          () => 'flush' as const,
        );
    }
  } finally {
    // A read still pending when a post fails rejects once the caller closes the watch: nobody awaits it.
    next?.catch(() => {});
  }
}
