import type { z } from 'zod';
import type { GitCredentials } from '../credentials';
import { GitHttpRefused, type HttpRefusal } from '../errors';
import { classifyHttpStatus, serverMessage } from '../http-status';
import type { Clock, GitAuth } from '../types';
import { ForgeAnswerUnreadable, ForgeCallTimedOut } from './forge-errors';

/** Past this, an answer is not a pull request or a page of them: it is refused, not buffered. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export type ForgeRequest<T> = {
  /** What the call does, for messages: "GitHub: open a pull request from kubescribe/prod". */
  what: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  url: string;
  body?: object;
  /** The statuses the host's API documents as success for this call. */
  ok: readonly number[];
  schema: z.ZodType<T>;
};

/** An answer the host refused with, as the caller may want to look at it before it is thrown. */
export type ForgeRefusal = HttpRefusal & { body: Buffer; headers: Headers };

export type ForgeHttpOptions = {
  credentials: GitCredentials;
  /** The headers that carry `auth` to this host (each host takes the token differently). */
  authHeaders(auth: GitAuth): Record<string, string>;
  /** Sent with every call (media type, API version). */
  headers: Record<string, string>;
  fetch: typeof fetch;
  userAgent: string;
  clock: Clock;
  timeoutMs: number;
  /** The host's own reading of a refusal where it differs from a Git host's (GitHub's rate limit). */
  reclassify?(refusal: ForgeRefusal, now: number): HttpRefusal;
};

async function readBounded(res: Response, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ForgeAnswerUnreadable({ call: what, reason: `more than ${MAX_ANSWER_BYTES} bytes` });
    }
    chunks.push(Buffer.from(read.value));
  }
  return Buffer.concat(chunks);
}

/**
 * One JSON call to a host's REST API: bounded by `timeoutMs` on the injected clock (the request and
 * its body are aborted), sent with the repository's current credentials and sent once more when the
 * host refused them and the credentials have others (an expired installation or Entra ID token), its
 * answer zod-checked. A refusal is thrown as `GitHttpRefused`, classified as a Git host's is.
 */
export async function callForge<T>(options: ForgeHttpOptions, request: ForgeRequest<T>): Promise<T> {
  const { clock, timeoutMs, credentials } = options;
  const controller = new AbortController();
  const timedOut = new ForgeCallTimedOut({ call: request.what, afterMs: timeoutMs });
  const timer = clock.setTimeout(() => controller.abort(timedOut), timeoutMs);
  const { signal } = controller;
  try {
    for (let attempt = 0; ; attempt += 1) {
      const auth = await credentials.current({ signal });
      const res = await options.fetch(request.url, {
        method: request.method,
        headers: {
          ...options.headers,
          ...(request.body ? { 'content-type': 'application/json' } : {}),
          'user-agent': options.userAgent,
          ...options.authHeaders(auth),
        },
        ...(request.body ? { body: JSON.stringify(request.body) } : {}),
        signal,
        redirect: 'manual',
      });
      const body = await readBounded(res, request.what);
      signal.throwIfAborted();
      if (request.ok.includes(res.status)) return parseAnswer(body, request);
      const refusal = refusalOf(options, res, body);
      if (refusal.outcome === 'authFailed' && attempt === 0 && credentials.refused(auth)) continue;
      throw new GitHttpRefused({ ...refusal, cause: `${request.what}: ${refusal.cause}` });
    }
  } catch (error) {
    if (signal.reason === timedOut) throw timedOut;
    throw error;
  } finally {
    clock.clearTimeout(timer);
  }
}

function refusalOf(options: ForgeHttpOptions, res: Response, body: Buffer): HttpRefusal {
  const now = options.clock.now();
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const classified = classifyHttpStatus({
    status: res.status,
    statusMessage: res.statusText,
    headers,
    body,
    now,
  });
  const refusal =
    res.status === 404
      ? {
          ...classified,
          // the Git layer's 404 names the repository; here it may be the pull request, and hosts
          // answer 404 rather than 403 to credentials that may not see a private repository
          cause: `not found (HTTP 404): the repository or pull request does not exist, or the credentials cannot see it${said(body, headers)}`,
        }
      : classified;
  return options.reclassify ? options.reclassify({ ...refusal, body, headers: res.headers }, now) : refusal;
}

function said(body: Buffer, headers: Record<string, string>): string {
  const text = serverMessage(body, headers['content-type']);
  return text ? `: ${text}` : '';
}

function parseAnswer<T>(body: Buffer, request: ForgeRequest<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ForgeAnswerUnreadable({ call: request.what, reason: 'not JSON' });
  }
  const parsed = request.schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || 'answer'}: ${issue.message}`);
    throw new ForgeAnswerUnreadable({ call: request.what, reason: issues.join('; ') });
  }
  return parsed.data;
}
