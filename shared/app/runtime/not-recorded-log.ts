import { emit } from '../../telemetry/bus';

/** How often one line per target, source and reason at most: a noisy feed writes a line a minute. */
export const NOT_RECORDED_LOG_INTERVAL_MS = 60_000;

/**
 * Logs events not recorded once per target, source and reason per interval: the first at once
 * (with its message), the others of the interval counted into the next line for that key. The
 * clock is the caller's. Holds one entry per key, and keys are configured names × the reasons of
 * the code's vocabulary, so it stays small.
 */
export interface NotRecordedLog {
  note(
    entries: readonly { target: string; source: string; reason: string; message: string }[],
    nowMs: number,
  ): void;
}

export function notRecordedLog(intervalMs = NOT_RECORDED_LOG_INTERVAL_MS): NotRecordedLog {
  const keys = new Map<string, { loggedAtMs: number; held: number }>();
  return {
    note(entries, nowMs) {
      const batch = new Map<string, { entry: (typeof entries)[number]; events: number }>();
      for (const entry of entries) {
        const key = `${entry.target}\n${entry.source}\n${entry.reason}`;
        const seen = batch.get(key);
        if (seen) seen.events++;
        else batch.set(key, { entry, events: 1 });
      }
      for (const [key, { entry, events }] of batch) {
        const known = keys.get(key);
        if (known && nowMs - known.loggedAtMs < intervalMs) {
          known.held += events;
          continue;
        }
        keys.set(key, { loggedAtMs: nowMs, held: 0 });
        emit({
          type: 'EventsNotRecorded',
          target: entry.target,
          source: entry.source,
          reason: entry.reason,
          events: events + (known?.held ?? 0),
          message: entry.message,
        });
      }
    },
  };
}
