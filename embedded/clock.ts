/**
 * The host's clock: real time for `npm start`, virtual time for tests (timers fire only when the
 * test advances the clock, so a 30-day durable timer takes no wall time).
 */
export interface Clock {
  now(): number;
  /** Calls `fire` once at (or after) `at` (epoch ms); returns a cancel function. */
  at(at: number, fire: () => void): () => void;
}

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Wall-clock time with setTimeout (long delays are re-armed in steps Node accepts). */
export function realClock(): Clock {
  return {
    now: () => Date.now(),
    at(at, fire) {
      let handle: NodeJS.Timeout;
      const arm = (): void => {
        const delay = at - Date.now();
        handle = setTimeout(
          delay > MAX_TIMEOUT_MS ? arm : fire,
          Math.max(0, Math.min(delay, MAX_TIMEOUT_MS)),
        );
        handle.unref?.();
      };
      arm();
      return () => clearTimeout(handle);
    },
  };
}

/** A clock that moves only when told to. */
export interface VirtualClock extends Clock {
  /** Moves time forward and fires every timer that became due, in time order. */
  advance(ms: number): void;
  set(epochMs: number): void;
}

/** A virtual clock starting at `startMs` (default 2030-01-01T00:00:00Z). */
export function virtualClock(startMs = Date.UTC(2030, 0, 1)): VirtualClock {
  let now = startMs;
  let seq = 0;
  const timers = new Map<number, { at: number; fire: () => void }>();
  const runDue = (): void => {
    for (;;) {
      let next: [number, { at: number; fire: () => void }] | undefined;
      for (const entry of timers) if (entry[1].at <= now && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) return;
      timers.delete(next[0]);
      next[1].fire();
    }
  };
  return {
    now: () => now,
    at(at, fire) {
      const id = seq++;
      timers.set(id, { at, fire });
      if (at <= now) queueMicrotask(runDue);
      return () => timers.delete(id);
    },
    advance(ms) {
      now += ms;
      runDue();
    },
    set(epochMs) {
      now = epochMs;
      runDue();
    },
  };
}
