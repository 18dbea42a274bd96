import { z } from 'zod';
import { ApiError } from '../../api/errors';
import type { ApiRequestBody } from '../../api/request';

/** An HTTP request as the app's handlers see it, whatever host delivered it. */
export interface RouteRequest {
  params: Readonly<Record<string, string | undefined>>;
  /** A query parameter of the URL (`?limit=50`), or null when it is absent. */
  query: (name: string) => string | null;
  header: (name: string) => string | null | undefined;
  body: ApiRequestBody;
  /** When the request was received (RFC 3339): the time of every command it becomes. */
  at: string;
}

/** A path parameter checked against its schema; a 400 names the parameter and what is wrong with it. */
export function pathParam(
  request: RouteRequest,
  name: string,
  schema: z.ZodType<string>,
  label: string,
): string {
  const parsed = schema.safeParse(request.params[name]);
  if (!parsed.success) {
    throw new ApiError('invalid-input', `The ${label} is not valid.`, {
      issues: [{ path: name, message: parsed.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  return parsed.data;
}

const MAX_PAGE = 500;
const DEFAULT_PAGE = 100;
const cursorSchema = z.string().regex(/^[0-9]{1,9}$/, 'must be a cursor as an earlier page returned it');
const limitSchema = z
  .string()
  .regex(/^[0-9]{1,4}$/, `must be a whole number from 1 to ${MAX_PAGE}`)
  .transform(Number)
  .refine((limit) => limit >= 1 && limit <= MAX_PAGE, `must be from 1 to ${MAX_PAGE}`);

/**
 * One page of `items` as `?cursor=&limit=` ask for it (at most 500, 100 by default): the page, the
 * total, and the cursor of the next page (null on the last). A cursor is a position in the listing
 * at the time it was read; the listings are queues that move, so an item may shift between pages.
 */
export function page<T>(request: RouteRequest, items: readonly T[]) {
  const issues: { path: string; message: string }[] = [];
  const cursorText = request.query('cursor');
  const limitText = request.query('limit');
  const cursor =
    cursorText === null ? { success: true as const, data: '0' } : cursorSchema.safeParse(cursorText);
  const limit =
    limitText === null ? { success: true as const, data: DEFAULT_PAGE } : limitSchema.safeParse(limitText);
  if (!cursor.success) issues.push({ path: 'cursor', message: cursor.error.issues[0]?.message ?? 'invalid' });
  if (!limit.success) issues.push({ path: 'limit', message: limit.error.issues[0]?.message ?? 'invalid' });
  if (!cursor.success || !limit.success)
    throw new ApiError('invalid-input', 'The paging parameters are not valid.', { issues });
  const start = Number(cursor.data);
  const end = start + limit.data;
  return {
    items: items.slice(start, end),
    total: items.length,
    nextCursor: end < items.length ? String(end) : null,
  };
}
