import type { z } from 'zod';
import type { ConfigIssue } from './errors';

/** Renders a zod issue path as a field path: `targets[0].window.idleTimeout`. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/** Zod issues as `{path, message}` pairs. Zod's messages name types and keys, never the value. */
export function toConfigIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
}
