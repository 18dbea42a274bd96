/**
 * Routes `/api/<route>` to the app's `app.http` functions with the Functions host's template syntax:
 * `{name}`, optional `{name?}`, catch-all `{*rest}`, and `{name:int}`-style constraints (int, bool,
 * guid, alpha are checked; others accept any segment). Literal segments win over parameters.
 */
import type { RegisteredFunction } from './core-module';

/** A path segment that is not valid percent-encoding (answered with 400). */
export class MalformedPathError extends Error {
  constructor() {
    super('The URL path is not valid percent-encoding.');
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new MalformedPathError();
  }
}

/** The function a request goes to, with its route parameters. */
export interface RouteMatch {
  fn: RegisteredFunction;
  params: Record<string, string>;
}

const CONSTRAINTS: Record<string, RegExp> = {
  int: /^-?\d+$/,
  long: /^-?\d+$/,
  bool: /^(true|false)$/i,
  guid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  alpha: /^[a-z]+$/i,
};

/**
 * Matches a path (without `/api`) against one route template; returns its parameters and a
 * specificity. Throws {@link MalformedPathError} for a parameter that is not valid percent-encoding.
 */
export function matchRoute(
  template: string,
  path: string,
): { params: Record<string, string>; score: number[] } | null {
  const t = template.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  const params: Record<string, string> = {};
  const score: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const m = /^\{(\*)?([^}:?]+)(?::([^}?]+))?(\?)?\}$/.exec(t[i]!);
    const segment = s[i];
    if (!m) {
      if (segment === undefined || segment.toLowerCase() !== t[i]!.toLowerCase()) return null;
      score.push(3);
      continue;
    }
    const [, catchAll, name, constraint, optional] = m;
    if (catchAll) {
      params[name!] = s.slice(i).map(decode).join('/');
      score.push(0);
      return { params, score };
    }
    if (segment === undefined) {
      if (!optional) return null;
      score.push(0);
      continue;
    }
    const value = decode(segment);
    const pattern = constraint ? CONSTRAINTS[constraint.split('(')[0]!.toLowerCase()] : undefined;
    if (pattern && !pattern.test(value)) return null;
    params[name!] = value;
    score.push(constraint ? 2 : 1);
  }
  return s.length <= t.length ? { params, score } : null;
}

/** Finds the function for a method and path: the most specific matching route wins. */
export function findRoute(
  functions: Iterable<RegisteredFunction>,
  method: string,
  path: string,
): RouteMatch | null {
  let best: { fn: RegisteredFunction; params: Record<string, string>; score: number[] } | null = null;
  for (const fn of functions) {
    if (fn.trigger.type !== 'httpTrigger') continue;
    const methods = (fn.trigger.methods ?? ['GET', 'POST']).map((m) => m.toUpperCase());
    if (!methods.includes(method.toUpperCase())) continue;
    const m = matchRoute(typeof fn.trigger.route === 'string' ? fn.trigger.route : fn.name, path);
    if (m && (!best || compare(m.score, best.score) > 0)) best = { fn, ...m };
  }
  return best && { fn: best.fn, params: best.params };
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
