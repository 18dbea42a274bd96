import { renderYaml } from './render-yaml';
import type { SanitizedObject } from './sanitize';

/** Levels of nested maps and sequences a recorded object may have, the object itself the first. */
export const MAX_OBJECT_DEPTH = 100;

/** Bytes of YAML one recorded object may render to (2 MiB: above etcd's 1.5 MiB object limit). */
export const MAX_RENDERED_BYTES = 2 * 1024 * 1024;

/** Why an object is not rendered: the field at fault (relative to the object) and the rule. */
export type BoundsProblem = {
  reason: 'object-too-deep' | 'object-too-large';
  path: PropertyKey[];
  message: string;
};

type Pending = { value: unknown; depth: number; indent: number; field: PropertyKey | undefined };

/**
 * Renders a sanitized object as YAML within `MAX_OBJECT_DEPTH` and `MAX_RENDERED_BYTES`, or names
 * the problem. The object is walked first without recursion (so no depth can overflow the stack),
 * counting a lower bound of the rendered bytes (indentation, keys, text, literal-block lines), so
 * an object whose indentation would multiply its size is refused before a byte is rendered.
 * @returns the YAML and its UTF-8 bytes.
 */
export function renderBounded(object: SanitizedObject): { content: string; bytes: number } | BoundsProblem {
  const problem = walk(object);
  if (problem) return problem;
  const content = renderYaml(object);
  // measured once: the request's render budget is charged these same bytes
  const bytes = Buffer.byteLength(content);
  if (bytes > MAX_RENDERED_BYTES) return tooLarge();
  return { content, bytes };
}

function walk(object: SanitizedObject): BoundsProblem | undefined {
  const stack: Pending[] = [{ value: object, depth: 1, indent: 0, field: undefined }];
  let bytes = 0;
  while (stack.length > 0) {
    const { value, depth, indent, field } = stack.pop() as Pending;
    if (typeof value === 'string') {
      bytes += value.length + countNewlines(value) * (indent + 2);
    } else if (typeof value === 'object' && value !== null) {
      if (depth > MAX_OBJECT_DEPTH) {
        return {
          reason: 'object-too-deep',
          path: field === undefined ? [] : [field],
          message: `nests maps and lists more than ${MAX_OBJECT_DEPTH} levels deep`,
        };
      }
      const entries: [string | undefined, unknown][] = Array.isArray(value)
        ? value.map((item) => [undefined, item])
        : Object.entries(value);
      for (const [key, item] of entries) {
        bytes += indent + (key === undefined ? 2 : key.length + 2);
        stack.push({ value: item, depth: depth + 1, indent: indent + 2, field: field ?? key });
      }
    } else {
      bytes += 5;
    }
    if (bytes > MAX_RENDERED_BYTES) return tooLarge();
  }
  return undefined;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function tooLarge(): BoundsProblem {
  return {
    reason: 'object-too-large',
    path: [],
    message: `renders to more than ${MAX_RENDERED_BYTES} bytes of YAML (2 MiB)`,
  };
}
