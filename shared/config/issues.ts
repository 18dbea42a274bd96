import type { z } from 'zod';
import type { ConfigIssue } from './errors';

/** Renders a zod issue path as a field path: `targets[0].window.idleTimeout`. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/**
 * Zod issues as `{path, message}` pairs, in a configuration's words where zod's own are a schema's
 * (`Invalid input: expected string, received undefined` is a missing field; `Unrecognized key` a
 * field the file should not have). Messages name types and keys, never the value.
 */
export function toConfigIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: configMessage(issue) }));
}

function configMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return `is required (${issue.expected})`;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `"${key}"`).join(', ');
    return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} it does not know: ${keys}`;
  }
  return issue.message;
}
