import { KubescribeError } from '../errors';

/**
 * What a failed Kubernetes API call means for the caller: the object is gone, someone wrote it
 * first (409), the call may succeed later (5xx, 429, timeouts, connection failures), or the
 * server refused it and will keep refusing until someone changes something (401, 403, 422...).
 */
export type KubeFailureKind = 'not-found' | 'conflict' | 'transient' | 'refused';

export interface KubeApiErrorData {
  kind: KubeFailureKind;
  /** The HTTP status, absent when no response arrived. */
  statusCode?: number;
  /** The `Status.reason` of the answer (`NotFound`, `Conflict`...) or the network error code (`ECONNREFUSED`). */
  reason: string;
}

/** A Kubernetes API call that failed; its message never carries credentials. */
export class KubeApiError extends KubescribeError<KubeApiErrorData> {
  static readonly code = 'KubeApiError';
  readonly code = KubeApiError.code;
}

const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Classifies an HTTP answer of the Kubernetes API. */
export function failureKindOf(statusCode: number): KubeFailureKind {
  if (statusCode === 404) return 'not-found';
  if (statusCode === 409) return 'conflict';
  if (TRANSIENT_STATUS.has(statusCode)) return 'transient';
  return 'refused';
}
