import type { Delay } from '../../../../shared/forwarder/runtime';

/** A wait the forwarder asked for, held until the test releases it. */
export interface HeldWait {
  ms: number;
  release(): void;
}

/**
 * The forwarder's injected delay, under the test's control: every wait is recorded and held until
 * released, so the test decides when a batch timer fires or a Retry-After has passed (no sleeps).
 */
export function manualDelay(): { delay: Delay; held: HeldWait[]; requested: number[]; releaseAll(): void } {
  const held: HeldWait[] = [];
  const requested: number[] = [];
  const delay: Delay = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      requested.push(ms);
      const wait: HeldWait = {
        ms,
        release: () => {
          held.splice(held.indexOf(wait), 1);
          resolve();
        },
      };
      held.push(wait);
      signal.addEventListener('abort', () => {
        const at = held.indexOf(wait);
        if (at >= 0) held.splice(at, 1);
        reject(signal.reason);
      });
    });
  return {
    delay,
    held,
    requested,
    releaseAll: () => {
      for (const wait of [...held]) wait.release();
    },
  };
}

/** Polls `condition` on real time until it holds (bounded): for sockets and processes, never for asserting times. */
export async function eventually<T>(
  condition: () => T | undefined | false,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = condition();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
