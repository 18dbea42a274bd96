/**
 * The base of every kubescribe error: a stable `code` (the class name), structured `data`, and a
 * JSON form. Errors cross durable boundaries (activities, entities) as JSON; without `toJSON` they
 * arrive as `{}` and only the message text is left to branch on.
 */
export abstract class KubescribeError<Data extends object = Record<string, unknown>> extends Error {
  abstract readonly code: string;
  readonly data: Data;

  constructor(message: string, data: Data, options?: { cause?: unknown }) {
    super(scrubSecrets(message), options);
    this.data = data;
  }

  override get name(): string {
    return this.code;
  }

  toJSON(): { code: string; data: Data; message: string } {
    return { code: this.code, data: this.data, message: this.message };
  }
}

const CREDENTIAL_IN_URL = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s:]+(?::[^/@\s]*)?@/gi;
const SECRET_PARAMETER = /\b(sig|code|key|token|access_token|password|secret)=([^&\s"']+)/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

/**
 * Masks credentials in text before it reaches a log, a status or Git: `scheme://user:pass@host`,
 * `token=`-style query parameters and `Authorization` header values.
 */
export function scrubSecrets(text: string): string {
  return text
    .replace(CREDENTIAL_IN_URL, '$1***@')
    .replace(SECRET_PARAMETER, '$1=***')
    .replace(BEARER, '$1 ***');
}

/** Turns any thrown value into an Error whose message is scrubbed of credentials. */
export function ensureError(thrown: unknown): Error {
  if (thrown instanceof KubescribeError) return thrown;
  if (thrown instanceof Error) {
    const error = new Error(scrubSecrets(thrown.message), { cause: thrown.cause });
    error.name = thrown.name;
    return error;
  }
  return new Error(
    scrubSecrets(typeof thrown === 'string' ? thrown : (JSON.stringify(thrown) ?? String(thrown))),
  );
}
