/**
 * The one table of HTTP errors of the contract (docs/api.md). Every error body has one shape,
 * `{error, message, issues?}`; the status and headers belong to the code, here and nowhere else.
 * Codes, once shipped, are never reused for another meaning.
 */
export const API_ERRORS = {
  'invalid-input': {
    status: 400,
    summary: 'The body or parameters do not match the contract; nothing was accepted.',
  },
  unauthorized: { status: 401, summary: 'The bearer token is missing or wrong.' },
  forbidden: { status: 403, summary: 'The source may not write this target.' },
  'target-not-found': { status: 404, summary: 'No target of that name is configured.' },
  'save-not-found': { status: 404, summary: 'The branch knows no save with that id.' },
  'branch-not-found': { status: 404, summary: 'No branch of that key has state here.' },
  'method-not-allowed': { status: 405, summary: 'The route does not take that method.' },
  'save-held': { status: 409, summary: 'The save is attached or committed; it can no longer be withdrawn.' },
  'suspended-by-configuration': {
    status: 409,
    summary: 'The target is suspended by its configuration; only the configuration can resume it.',
  },
  'too-many-parts': {
    status: 409,
    summary:
      'The snapshot already has the most parts one snapshot may have; nothing of the part was accepted.',
  },
  'payload-too-large': { status: 413, summary: 'The body is over the configured limit.' },
  'unsupported-media-type': { status: 415, summary: 'The body is not JSON.' },
  'intake-paused': {
    status: 429,
    summary:
      'The branch holds all it may while Git is failing, or all the snapshot parts it may; retry after the given seconds.',
  },
  'not-ready': { status: 503, summary: 'The service is starting or its configuration could not be read.' },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export interface ApiIssue {
  path: string;
  message: string;
}

export interface ApiErrorBody {
  [detail: string]: unknown;
  error: ApiErrorCode;
  message: string;
  issues?: ApiIssue[];
}

/** An HTTP answer, independent of the Functions types so that `shared/` stays host-free. */
export interface ApiResponse {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A refusal the HTTP layer answers with the contract's error body. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly issues: ApiIssue[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** Fields the contract adds to this error's body, e.g. the `phase` of a held save. */
  readonly details: Readonly<Record<string, string>>;

  constructor(
    code: ApiErrorCode,
    message: string,
    options: { issues?: ApiIssue[]; retryAfterSeconds?: number; details?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details ?? {};
  }

  toResponse(): ApiResponse {
    const body: ApiErrorBody = { ...this.details, error: this.code, message: this.message };
    if (this.issues && this.issues.length > 0) body.issues = this.issues;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(Math.max(1, Math.ceil(this.retryAfterSeconds)));
    return { status: API_ERRORS[this.code].status, headers, body };
  }
}
