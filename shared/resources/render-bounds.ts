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

/**
 * Renders a sanitized object as YAML within `MAX_OBJECT_DEPTH` and `MAX_RENDERED_BYTES`, or names
 * the problem. The object is walked first, counting a lower bound of the rendered bytes
 * (indentation, keys, text, literal-block lines), so an object whose indentation would multiply its
 * size is refused before a byte is rendered.
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

/**
 * Depth first, each map's or list's members counted before any is entered, the last entered first;
 * recursive, as the depth is checked before a level is entered, so the stack holds at most
 * `MAX_OBJECT_DEPTH` frames of it, whatever the input's depth.
 */
function walk(object: SanitizedObject): BoundsProblem | undefined {
  let bytes = 0;
  const visit = (
    value: unknown,
    depth: number,
    indent: number,
    field: PropertyKey | undefined,
  ): BoundsProblem | undefined => {
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
      if (Array.isArray(value)) {
        bytes += value.length * (indent + 2);
        if (bytes > MAX_RENDERED_BYTES) return tooLarge();
        for (let index = value.length - 1; index >= 0; index--) {
          const problem = visit(value[index], depth + 1, indent + 2, field);
          if (problem) return problem;
        }
        return undefined;
      }
      const keys = Object.keys(value);
      for (const key of keys) bytes += indent + key.length + 2;
      if (bytes > MAX_RENDERED_BYTES) return tooLarge();
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        const problem = visit((value as Record<string, unknown>)[key], depth + 1, indent + 2, field ?? key);
        if (problem) return problem;
      }
      return undefined;
    } else {
      bytes += 5;
    }
    return bytes > MAX_RENDERED_BYTES ? tooLarge() : undefined;
  };
  return visit(object, 1, 0, undefined);
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
