import * as git from 'isomorphic-git';
import { ensureError } from '../errors';
import { GitStepTimedOut } from './errors';
import type { GitStep, PublishResult } from './types';

export type FailureResult = Extract<
  PublishResult,
  { kind: 'transient' | 'rejected' | 'authFailed' | 'timeout' }
>;

/**
 * Converts what a Git call threw into a publication result, once, here: a bound that expired is a
 * timeout, 401/403 (and Azure DevOps' 203 sign-in page) is authFailed, 404 is rejected, everything
 * else (resets, refusals, 5xx) is transient. Messages are scrubbed of credentials.
 */
export function classifyFailure({ error, step }: { error: unknown; step: GitStep }): FailureResult {
  if (error instanceof GitStepTimedOut)
    return { kind: 'timeout', step: error.data.step as GitStep, afterMs: error.data.afterMs };
  const failure = ensureError(error);
  if (error instanceof git.Errors.HttpError) {
    const status = error.data.statusCode;
    if (status === 401 || status === 403 || status === 203) {
      return { kind: 'authFailed', cause: `the remote refused the credentials (HTTP ${status})` };
    }
    if (status === 404) return { kind: 'rejected', cause: 'the remote repository was not found (HTTP 404)' };
    return { kind: 'transient', step, cause: `HTTP ${status} ${error.data.statusMessage ?? ''}`.trim() };
  }
  const code = (error as { code?: unknown })?.code;
  const prefix = typeof code === 'string' && !failure.message.includes(code) ? `${code}: ` : '';
  return { kind: 'transient', step, cause: `${prefix}${failure.message}`.slice(0, 500) };
}
