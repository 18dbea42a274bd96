import { ensureError } from '../errors';
import { stringifyExactJson } from '../json/exact-json';
import { backoffDelayMs } from './backoff';
import { WebhookRejected } from './errors';
import type { Delay, ForwarderLog } from './runtime';

/** How long to wait on a 429 without a usable `Retry-After`, and the longest wait honoured. */
const DEFAULT_RETRY_AFTER_MS = 10_000;
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Posts bodies to one kubescribe target; resolves only once kubescribe answered 2xx. */
export interface Webhook {
  post(route: string, body: unknown): Promise<void>;
}

/**
 * The kubescribe client. A 429 (intake paused) waits `Retry-After` and re-sends the same body, for as
 * long as it takes; a network error or 5xx backs off with jitter and re-sends; any other 4xx throws
 * `WebhookRejected` (the same body can never succeed). The token never reaches a log.
 */
export function createWebhook({
  url,
  target,
  token,
  delay,
  random,
  log,
  signal,
}: {
  url: string;
  target: string;
  token: string | undefined;
  delay: Delay;
  random: () => number;
  log: ForwarderLog;
  signal: AbortSignal;
}): Webhook {
  const base = `${url.replace(/\/+$/, '')}/api/v1/targets/${encodeURIComponent(target)}`;
  return {
    async post(route, body) {
      // An int64 read from the cluster (a bigint) is posted as its digits.
      const text = stringifyExactJson(body);
      let failures = 0;
      for (;;) {
        signal.throwIfAborted();
        let res: Response;
        try {
          res = await fetch(`${base}${route}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: text,
            signal,
          });
        } catch (error) {
          signal.throwIfAborted();
          const waitMs = backoffDelayMs(failures++, random);
          log('WebhookUnreachable', { route, waitMs, message: ensureError(error).message });
          await delay(waitMs, signal);
          continue;
        }
        const answer = await res.text();
        if (res.ok) return;
        if (res.status === 429) {
          // Paused intake is expected back-pressure, not a failure: it neither counts toward backoff nor resets it.
          const waitMs = retryAfterMs(res.headers.get('retry-after'));
          log('IntakePaused', { route, waitMs });
          await delay(waitMs, signal);
          continue;
        }
        if (res.status >= 500) {
          const waitMs = backoffDelayMs(failures++, random);
          log('WebhookUnavailable', { route, status: res.status, waitMs });
          await delay(waitMs, signal);
          continue;
        }
        let error = '';
        let message = answer.slice(0, 512);
        try {
          const parsed = JSON.parse(answer) as { error?: unknown; message?: unknown };
          error = String(parsed.error ?? '');
          message = String(parsed.message ?? message);
        } catch {}
        throw new WebhookRejected(`kubescribe refused ${route} with ${res.status}: ${message}`, {
          status: res.status,
          error,
          path: route,
        });
      }
    },
  };
}

/** `Retry-After` in seconds or as an HTTP date; capped, and defaulted when absent or unreadable. */
function retryAfterMs(header: string | null): number {
  if (header === null) return DEFAULT_RETRY_AFTER_MS;
  const seconds = Number(header);
  // Number.isFinite rejects NaN and Infinity, which a timer would treat as 0 (a hot retry loop).
  if (Number.isFinite(seconds) && seconds >= 0)
    return Math.min(MAX_RETRY_AFTER_MS, Math.ceil(seconds * 1000));
  const at = Date.parse(header);
  if (Number.isFinite(at)) return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - Date.now()));
  return DEFAULT_RETRY_AFTER_MS;
}
