import type { Author, WriteOrigin } from './model';

/**
 * The origins table of the pending writes: each distinct (author, attribution, target, target folder,
 * prune mode) once, referenced by index and counted, so a slot is freed when its last write leaves
 * and reused by the next new origin (indexes of live writes never move).
 */
type Origins = readonly (WriteOrigin | null)[];
type OriginKey = Omit<WriteOrigin, 'writes'>;

function sameAuthor(a: Author, b: Author): boolean {
  return a.name === b.name && a.email === b.email && a.username === b.username;
}

function sameOrigin(a: OriginKey, b: OriginKey): boolean {
  return (
    a.target === b.target &&
    a.targetPath === b.targetPath &&
    a.prune === b.prune &&
    a.attribution === b.attribution &&
    sameAuthor(a.author, b.author)
  );
}

/** The origins with one more write referencing `key` (an equal entry, else the first free slot), and its index. */
export function acquireOrigin(
  origins: Origins,
  key: OriginKey,
): { origins: (WriteOrigin | null)[]; by: number } {
  const next = origins.slice();
  const found = origins.findIndex((origin) => origin !== null && sameOrigin(origin, key));
  if (found >= 0) {
    const origin = origins[found]!;
    next[found] = { ...origin, writes: origin.writes + 1 };
    return { origins: next, by: found };
  }
  const free = origins.indexOf(null);
  const by = free >= 0 ? free : origins.length;
  next[by] = { ...key, writes: 1 };
  return { origins: next, by };
}

/** The origins with one write fewer referencing `by`; an unreferenced origin is freed (trailing slots dropped). */
export function releaseOrigin(origins: Origins, by: number): (WriteOrigin | null)[] {
  const next = origins.slice();
  const origin = next[by];
  if (!origin) return next;
  next[by] = origin.writes > 1 ? { ...origin, writes: origin.writes - 1 } : null;
  while (next.length > 0 && next[next.length - 1] === null) next.pop();
  return next;
}
