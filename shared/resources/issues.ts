import type { z } from 'zod';
import type { PayloadIssue } from './errors';

/** Renders a path as `items[3].responseObject.metadata.name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/** Zod issues under a path prefix, as `{path, message}`; zod's messages name rules, not values. */
export function issuesFrom(error: z.ZodError, prefix: readonly PropertyKey[] = []): PayloadIssue[] {
  return error.issues.map((issue) => ({
    path: formatPath([...prefix, ...issue.path]),
    message: issue.message,
  }));
}
