import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms` (or rejects when `signal` aborts). Injected so that tests list the waits instead of sleeping. */
export type Delay = (ms: number, signal: AbortSignal) => Promise<void>;

/** The forwarder's log catalogue: each line is one of these events with its fields. */
export type ForwarderLogEvent =
  | 'SnapshotStarted'
  | 'SnapshotPartPosted'
  | 'SnapshotCompleted'
  | 'StreamingListUnsupported'
  | 'EventsPosted'
  | 'EventsExcluded'
  | 'WatchExpired'
  | 'WatchEnded'
  | 'WatchFailed'
  | 'IntakePaused'
  | 'WebhookUnreachable'
  | 'WebhookUnavailable';

export type ForwarderLog = (event: ForwarderLogEvent, fields: Record<string, unknown>) => void;

/** The production delay: a real timer that an abort cancels. */
export const realDelay: Delay = (ms, signal) => sleep(ms, undefined, { signal });
