import type { OpenWindow, StoredChange, WindowChange } from '../model';

/**
 * The open window's changes live in a two-level index of buckets chosen by a hash of the path
 * (32 groups of 32 buckets), each bucket a short array of compact tuples. Admitting a change copies
 * one group index, one bucket index and one bucket of a few entries, never the window: admits stay
 * O(1) in the backlog while the state stays immutable plain JSON, and tuples keep it small.
 */
const FANOUT = 32;

function hashOf(path: string): number {
  // FNV-1a, 32 bit: stable across processes and replays.
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    hash ^= path.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function decode(stored: StoredChange, openedAtMs: number): WindowChange {
  const [path, operation, bytes, seq, payloadRef, resourceVersion, sinceOpen] = stored;
  const atMs = sinceOpen === undefined ? undefined : openedAtMs + sinceOpen;
  const change: WindowChange = { path, operation, bytes, seq };
  if (payloadRef !== null) change.payloadRef = payloadRef;
  if (resourceVersion !== null) change.resourceVersion = resourceVersion;
  if (atMs !== undefined) change.atMs = atMs;
  return change;
}

/** Buckets with nothing in them, for a window that just opened. */
export function emptyBuckets(): OpenWindow['buckets'] {
  return Array.from({ length: FANOUT }, () => Array.from({ length: FANOUT }, () => []));
}

/** The change the window holds for `path`, if any. */
export function changeIn(
  window: Pick<OpenWindow, 'buckets' | 'openedAt'>,
  path: string,
): WindowChange | undefined {
  const hash = hashOf(path);
  const stored = window.buckets[hash % FANOUT]?.[(hash >>> 5) % FANOUT]?.find((entry) => entry[0] === path);
  return stored ? decode(stored, Date.parse(window.openedAt)) : undefined;
}

/** The window's buckets with `change` stored under its path (new arrays; the old ones are untouched). */
function withChange(buckets: OpenWindow['buckets'], change: WindowChange): OpenWindow['buckets'] {
  const hash = hashOf(change.path);
  const groupIndex = hash % FANOUT;
  const bucketIndex = (hash >>> 5) % FANOUT;
  const fields = [
    change.path,
    change.operation,
    change.bytes,
    change.seq,
    change.payloadRef ?? null,
    change.resourceVersion ?? null,
  ] as const;
  // the receipt time is kept as milliseconds since the window opened
  const stored: StoredChange = change.atMs === undefined ? [...fields] : [...fields, change.atMs];
  const group = buckets[groupIndex] ?? [];
  const bucket = group[bucketIndex] ?? [];
  const at = bucket.findIndex((entry) => entry[0] === change.path);
  const nextBucket = bucket.slice();
  if (at < 0) nextBucket.push(stored);
  else nextBucket[at] = stored;
  const nextGroup = group.slice();
  nextGroup[bucketIndex] = nextBucket;
  const next = buckets.slice();
  next[groupIndex] = nextGroup;
  return next;
}

/**
 * The window's contents with `admitted` (received `sinceOpenMs` after the window opened) admitted: a path seen before keeps its place (its first-seen
 * order) and its new bytes replace the old ones; a new path comes last.
 */
export function admitToWindow(
  window: OpenWindow,
  admitted: readonly Omit<WindowChange, 'seq'>[],
  sinceOpenMs: number,
): Pick<OpenWindow, 'buckets' | 'paths' | 'bytes' | 'nextSeq'> {
  let { buckets, paths, bytes, nextSeq } = window;
  for (const change of admitted.map((entry) => ({ ...entry, atMs: sinceOpenMs }))) {
    const previous = changeIn({ buckets, openedAt: window.openedAt }, change.path);
    if (previous) {
      bytes += change.bytes - previous.bytes;
      buckets = withChange(buckets, { ...change, seq: previous.seq });
    } else {
      paths += 1;
      bytes += change.bytes;
      buckets = withChange(buckets, { ...change, seq: nextSeq });
      nextSeq += 1;
    }
  }
  return { buckets, paths, bytes, nextSeq };
}

/** Every change of the window in first-seen path order. */
export function changesInOrder(window: OpenWindow): WindowChange[] {
  const all: WindowChange[] = [];
  const openedAtMs = Date.parse(window.openedAt);
  for (const group of window.buckets)
    for (const bucket of group) for (const stored of bucket) all.push(decode(stored, openedAtMs));
  return all.sort((a, b) => a.seq - b.seq);
}
