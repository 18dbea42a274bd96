import { ensureError } from '../errors';
import { GitHttpRefused, GitStepTimedOut, type HttpRefusal } from './errors';
import type { GitStep, PublishResult } from './types';

export type FailureResult = Extract<
  PublishResult,
  { kind: 'transient' | 'rejected' | 'authFailed' | 'timeout' }
>;

/** A refused HTTP exchange (see `http-status.ts`) as a publication result. */
export function refusalResult(refusal: HttpRefusal, step: GitStep): FailureResult {
  if (refusal.outcome === 'transient') {
    return {
      kind: 'transient',
      step,
      cause: refusal.cause,
      ...(refusal.retryAfterMs !== undefined ? { retryAfterMs: refusal.retryAfterMs } : {}),
    };
  }
  return { kind: refusal.outcome, cause: refusal.cause };
}

/**
 * Converts what a Git call threw into a publication result, once, here: a bound that expired is a
 * timeout, an HTTP answer is classified by its status (`http-status.ts`: 401/403/203 authFailed,
 * 408/429/5xx transient, any other rejected), everything else (resets, refusals) is transient.
 * Messages are scrubbed of credentials.
 */
export function classifyFailure({ error, step }: { error: unknown; step: GitStep }): FailureResult {
  if (error instanceof GitStepTimedOut)
    return { kind: 'timeout', step: error.data.step as GitStep, afterMs: error.data.afterMs };
  if (error instanceof GitHttpRefused) return refusalResult(error.data, step);
  const failure = ensureError(error);
  const code = (error as { code?: unknown })?.code;
  const prefix = typeof code === 'string' && !failure.message.includes(code) ? `${code}: ` : '';
  return { kind: 'transient', step, cause: `${prefix}${failure.message}`.slice(0, 500) };
}
