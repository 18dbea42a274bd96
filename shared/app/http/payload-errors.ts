import { ApiError } from '../../api/errors';
import { PayloadInvalid, PayloadRendersTooLarge } from '../../resources';

/**
 * Runs a normalizer; its `PayloadInvalid` becomes the contract's 400 with every issue's path, a
 * payload that renders to too much YAML the 413 of a body over its limit.
 */
export function normalized<T>(kind: string, normalize: () => T): T {
  try {
    return normalize();
  } catch (error) {
    if (error instanceof PayloadInvalid) {
      throw new ApiError('invalid-input', `The ${kind} is not valid; nothing was accepted.`, {
        issues: error.data.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      });
    }
    if (error instanceof PayloadRendersTooLarge) {
      throw new ApiError(
        'payload-too-large',
        `The ${kind} renders to more than ${error.data.limitBytes} bytes of YAML; nothing was accepted.`,
      );
    }
    throw error;
  }
}
