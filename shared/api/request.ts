import type { z } from 'zod';
import { JsonNumberOutOfRange, parseExactJson } from '../json/exact-json';
import { ApiError, type ApiIssue } from './errors';

/** The parts of an HTTP request the contract looks at, whatever host delivered it. */
export interface ApiRequestBody {
  contentType: string | null | undefined;
  contentLength: string | null | undefined;
  read: () => Promise<ArrayBuffer>;
}

/**
 * Reads a JSON body within `limitBytes` and validates it with `schema`. Every refusal is an
 * `ApiError` naming the problem (413, 415, 400 with the zod issues); nothing is half-read.
 */
export async function readJsonBody<Schema extends z.ZodType>(
  request: ApiRequestBody,
  schema: Schema,
  limitBytes: number,
): Promise<z.output<Schema>> {
  const json = await readJson(request, limitBytes);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'The body does not match the contract.', {
      issues: zodIssues(parsed.error.issues),
    });
  }
  return parsed.data;
}

/**
 * Reads a JSON body within `limitBytes`, without validating its shape. Numbers stay exact: an
 * integer beyond ±(2^53 - 1) is a `bigint` (`parseExactJson`), so it reaches Git digit for digit.
 */
export async function readJson(request: ApiRequestBody, limitBytes: number): Promise<unknown> {
  const mediaType = (request.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw new ApiError(
      'unsupported-media-type',
      `Send JSON ("Content-Type: application/json"), not "${mediaType || 'nothing'}".`,
    );
  }
  const declared = Number(request.contentLength ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(declared, limitBytes);
  const bytes = Buffer.from(await request.read());
  if (bytes.length > limitBytes) throw tooLarge(bytes.length, limitBytes);
  try {
    return parseExactJson(bytes.toString('utf8'));
  } catch (error) {
    if (error instanceof JsonNumberOutOfRange) throw numberOutOfRange(error);
    throw notJson(error);
  }
}

/**
 * The refusal of a body that is not JSON, saying where the parser stopped but never quoting the
 * body: V8's message can echo a piece of it, and a body may hold a secret or be shown back to a browser.
 */
function notJson(error: unknown): ApiError {
  const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  const where = position === undefined ? '' : ` (at character ${position})`;
  return new ApiError('invalid-input', `The body is not valid JSON${where}.`);
}

/** A number no JSON reader can carry is refused, never recorded as infinity or a rounded value. */
function numberOutOfRange(error: JsonNumberOutOfRange): ApiError {
  return new ApiError(
    'invalid-input',
    `The body holds a number beyond the range of a 64-bit floating point number (at character ${error.position}); ` +
      'no Kubernetes object can carry it, and kubescribe records numbers as they are rather than rounding them.',
  );
}

/** zod's issues in the contract's `{path, message}` form. */
export function zodIssues(issues: readonly z.core.$ZodIssue[]): ApiIssue[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

function tooLarge(size: number, limitBytes: number): ApiError {
  return new ApiError('payload-too-large', `The body is ${size} bytes; the limit is ${limitBytes} bytes.`);
}
