import type { z } from 'zod';
import { ApiError } from '../../api/errors';
import type { ApiRequestBody } from '../../api/request';

/** An HTTP request as the app's handlers see it, whatever host delivered it. */
export interface RouteRequest {
  params: Readonly<Record<string, string | undefined>>;
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
