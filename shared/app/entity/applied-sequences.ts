import { REQUEST_MEMORY_MS } from './recent-requests';
import type { SequencedRequest } from './request-ids';

/**
 * The client signals the branch applied, by sender, as ranges of their sequence numbers
 * (request-ids.ts), so that a signal the engine delivers again is dropped. Each range is
 * `[first, last, minute]`, sorted by `first`; `minute` (epoch minutes) is the entity's time (the
 * latest `at` it has seen) when the range last grew.
 *
 * A sender's signals to one branch are numbered in order, so while it sends they extend one range
 * of a few dozen bytes whatever the rate; a gap is a signal held by the engine (it comes back and
 * closes the gap) or never sent (a failed signal). A range is forgotten `REQUEST_MEMORY_MS` after
 * it last grew: a sender's live range stays as long as the sender sends, so a delivery again is
 * dropped however late it comes while its sender is alive, and at least that span after it was
 * applied when its sender has stopped. On Azure Storage a redelivery comes back after the control
 * queue's visibility timeout (5 minutes from the last renewal of its session's lock), plus the
 * abandon backoff of every batch that failed meanwhile (up to 10 minutes each): no fixed span
 * covers it, and this memory does not need one.
 *
 * At most `MAX_RANGES` ranges are kept, the least recently grown forgotten first: 256 ranges are
 * 256 signals held or lost within the span, at most about 8.5 KB of state (ten-digit numbers).
 */
export type AppliedRange = [first: number, last: number, minute: number];
/** By sender. */
export type AppliedSequences = Record<string, AppliedRange[]>;

export const MAX_RANGES = 256;

const MINUTE_MS = 60_000;
const SPAN_MINUTES = REQUEST_MEMORY_MS / MINUTE_MS;

/** Whether the signal numbered `sequence` by `sender` was applied within the memory. */
export function seenSequence(applied: AppliedSequences | undefined, request: SequencedRequest): boolean {
  return (applied?.[request.sender] ?? []).some(
    ([first, last]) => first <= request.sequence && request.sequence <= last,
  );
}

/** The memory with `request` applied at `atMs`, ranges past the span and the oldest over the cap forgotten. */
export function rememberSequence(
  applied: AppliedSequences | undefined,
  request: SequencedRequest,
  atMs: number,
): AppliedSequences {
  const now = Math.max(Math.floor(atMs / MINUTE_MS), latestMinute(applied));
  const grown: AppliedSequences = {
    ...applied,
    [request.sender]: withSequence(applied?.[request.sender] ?? [], request.sequence, now),
  };
  const kept: AppliedSequences = {};
  for (const [sender, ranges] of Object.entries(grown)) {
    const recent = ranges.filter(([, , minute]) => minute > now - SPAN_MINUTES);
    if (recent.length > 0) kept[sender] = recent;
  }
  return withinCap(kept);
}

/** `ranges` with `sequence` added at `minute`: joined to the range it extends, or to both it bridges. */
function withSequence(ranges: readonly AppliedRange[], sequence: number, minute: number): AppliedRange[] {
  const after = ranges.findIndex(([first]) => first > sequence);
  const at = after < 0 ? ranges.length : after;
  const before = ranges[at - 1];
  const next = ranges[at];
  if (before && before[1] >= sequence) return [...ranges];
  const joinsBefore = before !== undefined && before[1] + 1 === sequence;
  const joinsNext = next !== undefined && next[0] - 1 === sequence;
  const first = joinsBefore ? before[0] : sequence;
  const last = joinsNext ? next[1] : sequence;
  const from = joinsBefore ? at - 1 : at;
  const to = joinsNext ? at + 1 : at;
  return [...ranges.slice(0, from), [first, last, minute], ...ranges.slice(to)];
}

function latestMinute(applied: AppliedSequences | undefined): number {
  let latest = 0;
  for (const ranges of Object.values(applied ?? {}))
    for (const [, , minute] of ranges) latest = Math.max(latest, minute);
  return latest;
}

/** `applied` (the caller's own copy) with at most `MAX_RANGES` ranges: the least recently grown dropped first. */
function withinCap(applied: AppliedSequences): AppliedSequences {
  let count = 0;
  for (const ranges of Object.values(applied)) count += ranges.length;
  // One range over at a time in steady state: a scan, not a sort, per signal.
  for (; count > MAX_RANGES; count--) {
    let oldest: { sender: string; index: number; minute: number } | undefined;
    for (const [sender, ranges] of Object.entries(applied))
      ranges.forEach(([, , minute], index) => {
        if (!oldest || minute < oldest.minute) oldest = { sender, index, minute };
      });
    const { sender, index } = oldest!;
    const left = applied[sender]!.filter((_, at) => at !== index);
    if (left.length > 0) applied[sender] = left;
    else delete applied[sender];
  }
  return applied;
}
