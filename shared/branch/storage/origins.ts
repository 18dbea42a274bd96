import { type PruneMode, sameAuthor, type WriteOrigin } from '../model';

/**
 * The origins table of the pending writes: each distinct (author, attribution, target, target folder,
 * prune mode) once, referenced by index and counted, so a slot is freed when its last write leaves
 * and reused by the next new origin (indexes of live writes never move).
 */
export type Origins = readonly (WriteOrigin | null)[];
type OriginKey = Omit<WriteOrigin, 'writes'>;

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

/**
 * The origins with the write referencing `by` moved to its origin's equal under `prune`, and the index
 * it now references. The old origin is released first, so a slot it frees can take the new one.
 */
export function reprunedOrigin(
  origins: (WriteOrigin | null)[],
  by: number,
  prune: PruneMode,
): { origins: (WriteOrigin | null)[]; by: number } {
  const origin = origins[by];
  if (!origin || origin.prune === prune) return { origins, by };
  const { writes: _count, ...key } = origin;
  return acquireOrigin(releaseOrigin(origins, by), { ...key, prune });
}
