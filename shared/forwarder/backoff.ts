/** The first reconnect or retry waits about this long (kubernetes-client's BASE_RECONNECT_DELAY_MS). */
export const BASE_RETRY_DELAY_MS = 1000;
/** Retries never wait longer than this. */
export const MAX_RETRY_DELAY_MS = 30_000;

/**
 * The wait before retry number `attempt` (0-based): doubling from 1 s, capped at 30 s, with "equal
 * jitter" (half fixed, half random) so that forwarders cut off together do not reconnect together.
 * @param random a number in [0, 1), injected so that tests can list the schedule
 * @example backoffDelayMs(2, () => 0.5) // 3000
 */
export function backoffDelayMs(attempt: number, random: () => number): number {
  const capped = Math.min(MAX_RETRY_DELAY_MS, BASE_RETRY_DELAY_MS * 2 ** Math.max(0, attempt));
  return Math.round(capped / 2 + (random() * capped) / 2);
}
