/**
 * The request ids of client signals the branch applied recently that are not in the sequenced
 * form (request-ids.ts), so that a signal delivered again is dropped: the random ids of releases
 * up to 0.3.0, still queued when this release takes over (sequenced ids are remembered as ranges,
 * applied-sequences.ts). Client signals bypass the entity's message sorter: Azure Storage
 * redelivers a message that was in flight when its partition moved once its visibility timeout
 * (5 min) has passed.
 *
 * Ids are kept per minute of application (the entity's own time: the latest `at` it has seen, so a
 * late signal with an old `at` is remembered for the full span), space-separated in one string a
 * minute, for `REQUEST_MEMORY_MS` and at most `MAX_REMEMBERED` ids: 17 bytes of state an id. Every
 * request forgets the minutes past the span, so once no such id arrives the memory empties.
 */
export interface RecentRequests {
  /** Start of the minute (epoch ms) the ids were applied in. */
  minute: number;
  ids: string;
}

/** Twice the visibility timeout: a redelivery comes back after it, plus the time to be taken up. */
export const REQUEST_MEMORY_MS = 10 * 60_000;
/** 16,384 ids (about 280 KB of state): 27 signals a second for the full ten minutes. */
export const MAX_REMEMBERED = 16_384;

const MINUTE_MS = 60_000;

/** Whether `id` was applied within the memory. */
export function seenRequest(recent: readonly RecentRequests[] | undefined, id: string): boolean {
  return (recent ?? []).some((bucket) => holdsId(bucket.ids, id));
}

/** Whether the space-separated `ids` hold `id` as a whole word (searched in place: the string is large). */
function holdsId(ids: string, id: string): boolean {
  for (let at = ids.indexOf(id); at >= 0; at = ids.indexOf(id, at + 1)) {
    const end = at + id.length;
    if ((at === 0 || ids[at - 1] === ' ') && (end === ids.length || ids[end] === ' ')) return true;
  }
  return false;
}

// Ids a bucket holds, by bucket: a bucket carried from the operation before is not counted again
// (counting is a scan of up to 280 KB; a batch applies up to 50 signals on one state).
const counted = new WeakMap<RecentRequests, number>();

function countOf(bucket: RecentRequests): number {
  let count = counted.get(bucket);
  if (count === undefined) {
    count = idCount(bucket.ids);
    counted.set(bucket, count);
  }
  return count;
}

/** The memory with `id` applied at `atMs`, the minutes past the memory and the oldest ids over the cap forgotten. */
export function rememberRequest(
  recent: readonly RecentRequests[] | undefined,
  id: string,
  atMs: number,
): RecentRequests[] {
  const buckets = [...(recent ?? [])];
  const latest = buckets.at(-1);
  const minute = entityMinute(recent, atMs);
  if (latest && latest.minute === minute) {
    const grown = { minute, ids: `${latest.ids} ${id}` };
    counted.set(grown, countOf(latest) + 1);
    buckets[buckets.length - 1] = grown;
  } else buckets.push({ minute, ids: id });
  const kept = withinSpan(buckets, minute);
  let count = kept.reduce((sum, bucket) => sum + countOf(bucket), 0);
  while (count > MAX_REMEMBERED && kept.length > 0) {
    const oldest = kept[0]!;
    const over = count - MAX_REMEMBERED;
    const ids = oldest.ids.split(' ');
    if (ids.length <= over) {
      kept.shift();
      count -= ids.length;
    } else {
      kept[0] = { minute: oldest.minute, ids: ids.slice(over).join(' ') };
      count -= over;
    }
  }
  return kept;
}

/** The memory without the minutes past the span, as of a request applied at `atMs`. */
export function forgetPastSpan(recent: readonly RecentRequests[], atMs: number): RecentRequests[] {
  return withinSpan(recent, entityMinute(recent, atMs));
}

function entityMinute(recent: readonly RecentRequests[] | undefined, atMs: number): number {
  return Math.max(Math.floor(atMs / MINUTE_MS) * MINUTE_MS, recent?.at(-1)?.minute ?? 0);
}

function withinSpan(buckets: readonly RecentRequests[], minute: number): RecentRequests[] {
  return buckets.filter((bucket) => bucket.minute > minute - REQUEST_MEMORY_MS);
}

function idCount(ids: string): number {
  let count = 1;
  for (let at = ids.indexOf(' '); at >= 0; at = ids.indexOf(' ', at + 1)) count += 1;
  return count;
}
