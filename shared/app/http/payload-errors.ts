import { ApiError } from '../../api/errors';
import { PayloadInvalid } from '../../resources';

/** Runs a normalizer; its `PayloadInvalid` becomes the contract's 400 with every issue's path. */
export function normalized<T>(kind: string, normalize: () => T): T {
  try {
    return normalize();
  } catch (error) {
    if (error instanceof PayloadInvalid) {
      throw new ApiError('invalid-input', `The ${kind} is not valid; nothing was accepted.`, {
        issues: error.data.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      });
    }
    throw error;
  }
}
