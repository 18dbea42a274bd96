import { KubescribeError, scrubSecrets } from '../../errors';
import { GitHttpRefused } from '../errors';

/** A pull-request call ran past its bound; its request was aborted. */
export class ForgeCallTimedOut extends KubescribeError<{ call: string; afterMs: number }> {
  static readonly code = 'ForgeCallTimedOut';
  readonly code = ForgeCallTimedOut.code;
  constructor(data: { call: string; afterMs: number }) {
    super(`${data.call} did not finish within ${data.afterMs} ms`, data);
  }
}

/** The host answered success with a body its API does not document: retrying reads the same. */
export class ForgeAnswerUnreadable extends KubescribeError<{ call: string; reason: string }> {
  static readonly code = 'ForgeAnswerUnreadable';
  readonly code = ForgeAnswerUnreadable.code;
  constructor(data: { call: string; reason: string }) {
    super(`${data.call} answered something unreadable: ${data.reason}`, data);
  }
}

/** The repository URL does not say which host it is on, or where on it the repository is. */
export class ForgeLocationUnknown extends KubescribeError<{ url: string; reason: string }> {
  static readonly code = 'ForgeLocationUnknown';
  readonly code = ForgeLocationUnknown.code;
  constructor(data: { url: string; reason: string }) {
    super(`no pull requests for ${data.url}: ${data.reason}`, data);
  }
}

/** What a failed pull-request call means for the caller, spelled as a Git failure is. */
export type ForgeFailure = {
  outcome: 'transient' | 'authFailed' | 'rejected';
  cause: string;
  /** The host's `Retry-After` (or GitHub's rate-limit reset), in ms. */
  retryAfterMs?: number;
};

/**
 * The one classification of what a `Forge` call threw: an HTTP answer as `http-status.ts` classifies
 * a Git host's, a timeout or a network error as transient, an unreadable answer or an unknown
 * location as rejected (the same call would meet the same).
 */
export function forgeFailure(error: unknown): ForgeFailure {
  if (error instanceof GitHttpRefused) {
    const { outcome, cause, retryAfterMs } = error.data;
    return retryAfterMs === undefined ? { outcome, cause } : { outcome, cause, retryAfterMs };
  }
  if (error instanceof ForgeAnswerUnreadable || error instanceof ForgeLocationUnknown)
    return { outcome: 'rejected', cause: error.message };
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const why = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const prefix = typeof code === 'string' && !error.message.includes(code) ? `${code}: ` : '';
    return { outcome: 'transient', cause: scrubSecrets(`${prefix}${error.message}${why}`).slice(0, 500) };
  }
  return { outcome: 'transient', cause: scrubSecrets(String(error)).slice(0, 500) };
}
