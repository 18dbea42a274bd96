import type { GitHttpResponse } from 'isomorphic-git';
import { scrubSecrets } from '../errors';
import { GitHttpRefused, type HttpRefusal } from './errors';

/** The longest `Retry-After` kept as a hint; a server asking for more is waited on by the caller's own backoff. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;

/** `Retry-After` in seconds or as an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

/** What a server said in an error body, readable in one line: tags stripped, scrubbed, bounded. */
export function serverMessage(body: Buffer, contentType: string | undefined): string {
  let text = body.subarray(0, 4096).toString('utf8');
  if (/html/i.test(contentType ?? '') || /^\s*</.test(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
    text = title ?? text.replace(/<[^>]*>/g, ' ');
  }
  return scrubSecrets(text.replace(/\s+/g, ' ').trim()).slice(0, 300);
}

/**
 * Every HTTP status a Git host answers, as one of three outcomes, with the server's message kept:
 * 401/403 and 203 (Azure DevOps' sign-in page) are the credentials, 407 the proxy's; 408, 429 and 5xx are worth
 * retrying (with `Retry-After` as the hint); any other status (a redirect not followed, 400, 404,
 * 413, ...) will not change by retrying the same request.
 */
export function classifyHttpStatus({
  status,
  statusMessage = '',
  headers = {},
  body = Buffer.alloc(0),
  now = Date.now(),
}: {
  status: number;
  statusMessage?: string;
  headers?: Record<string, string>;
  body?: Buffer;
  now?: number;
}): HttpRefusal {
  const said = status === 203 ? '' : serverMessage(body, headers['content-type']);
  const line = `HTTP ${status} ${statusMessage}`.trim();
  const cause = (what: string) => (said ? `${what}: ${said}` : what);
  if (status === 407) {
    return { outcome: 'authFailed', status, cause: 'the proxy refused its credentials (HTTP 407)' };
  }
  if (status === 401 || status === 403 || status === 203) {
    return {
      outcome: 'authFailed',
      status,
      cause: cause(`the remote refused the credentials (HTTP ${status})`),
    };
  }
  if (status === 408 || status === 429 || status >= 500) {
    const wait = retryAfterMs(headers['retry-after'], now);
    return {
      outcome: 'transient',
      status,
      cause: cause(line),
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    };
  }
  if (status === 404)
    return { outcome: 'rejected', status, cause: cause('the remote repository was not found (HTTP 404)') };
  if (status >= 300 && status < 400) {
    const to = headers.location ? ` to ${scrubSecrets(headers.location)}` : '';
    return { outcome: 'rejected', status, cause: `${line}: a redirect${to} that is not followed` };
  }
  return { outcome: 'rejected', status, cause: cause(line) };
}

/** Reads a whole response body (error bodies and Git replies are small or already bounded by the caller). */
export async function readBody(res: GitHttpResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  if (res.body) for await (const chunk of res.body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Throws GitHttpRefused for a response that is not a 200. */
export function refuseUnlessOk(res: GitHttpResponse, body: Buffer, now: number): void {
  if (res.statusCode === 200) return;
  throw new GitHttpRefused(
    classifyHttpStatus({
      status: res.statusCode,
      statusMessage: res.statusMessage,
      headers: res.headers ?? {},
      body,
      now,
    }),
  );
}
