import { cutTo } from './field-limits';
import type { Operation, PendingWrite } from './model';

/** Minutes of accepted and published counts a target keeps: the last hour. */
export const ACTIVITY_MINUTES = 60;
/** Commits of the branch the state keeps for the targets' "what changed" view (all targets together). */
export const RECENT_COMMITS_KEPT = 10;
/** Changes a recent commit lists; the commit body in Git lists more (`LISTED_OBJECTS`). */
export const CHANGES_LISTED = 3;
/** Characters of a commit's subject kept; the full message is in Git. */
export const SUBJECT_CHARS = 120;
/** Characters of an author's name, and of a change's path, kept (both may be far longer: `FIELD_CHARS`). */
export const AUTHOR_CHARS = 128;
export const PATH_CHARS = 256;

const MINUTE_MS = 60_000;

/**
 * A target's changes per minute, newest minute first: `accepted[i]` and `published[i]` count the
 * minute `minute - i` (epoch minutes). Trailing zeros are left out, so an idle target costs a few
 * bytes, and neither array is ever longer than `ACTIVITY_MINUTES`.
 */
export interface MinuteCounts {
  minute: number;
  accepted: number[];
  published: number[];
}

/** A change a recent commit made: the operation and the object's path inside the target's folder. */
export interface RecentChange {
  op: Operation;
  path: string;
}

/** A commit the branch published, as the target's status lists it; bounded (`CHANGES_LISTED`, `SUBJECT_CHARS`). */
export interface RecentCommit {
  commit: string;
  at: string;
  target: string;
  author: string;
  subject: string;
  changes: RecentChange[];
  /** Changes of the commit not listed in `changes`. */
  more: number;
}

type Series = 'accepted' | 'published';

/** `known` with `count` added to `series` in the minute of `atMs`; minutes older than the hour fall off. */
export function countInMinute(
  known: MinuteCounts | undefined,
  series: Series,
  atMs: number,
  count: number,
): MinuteCounts {
  const minute = Math.floor(atMs / MINUTE_MS);
  const base = known ?? { minute, accepted: [], published: [] };
  // a count stamped before the newest minute (clocks of other instances) lands in its own minute
  const shift = Math.max(0, minute - base.minute);
  const moved = {
    minute: base.minute + shift,
    accepted: shifted(base.accepted, shift),
    published: shifted(base.published, shift),
  };
  const slot = moved.minute - minute;
  if (slot >= ACTIVITY_MINUTES || count <= 0) return moved;
  const series_ = [...moved[series]];
  while (series_.length <= slot) series_.push(0);
  series_[slot] = (series_[slot] ?? 0) + count;
  return { ...moved, [series]: series_ };
}

function shifted(counts: number[], by: number): number[] {
  if (by === 0) return counts;
  const moved = [...new Array<number>(Math.min(by, ACTIVITY_MINUTES)).fill(0), ...counts].slice(
    0,
    ACTIVITY_MINUTES,
  );
  while (moved.length > 0 && moved[moved.length - 1] === 0) moved.pop();
  return moved;
}

/**
 * The last hour of `counts` as `ACTIVITY_MINUTES` slots ending with the minute of `nowMs`, oldest
 * first (as a chart draws them), each with the minute's start.
 */
export function lastHour(
  counts: MinuteCounts | undefined,
  nowMs: number,
): { minute: string; accepted: number; published: number }[] {
  const now = Math.floor(nowMs / MINUTE_MS);
  const slots = [];
  for (let age = ACTIVITY_MINUTES - 1; age >= 0; age--) {
    const minute = now - age;
    const slot = counts ? counts.minute - minute : -1;
    const inRange = counts !== undefined && slot >= 0;
    slots.push({
      minute: new Date(minute * MINUTE_MS).toISOString(),
      accepted: inRange ? (counts.accepted[slot] ?? 0) : 0,
      published: inRange ? (counts.published[slot] ?? 0) : 0,
    });
  }
  return slots;
}

/** The changes a write carries, as counted per minute: its changes, a snapshot's objects, none for a save's record. */
export function changesOf(write: Pick<PendingWrite, 'changes' | 'snapshot' | 'runs'>): number {
  if (write.runs) return (write.changes?.length ?? 0) + runChanges(write.runs);
  return write.changes?.length ?? write.snapshot?.objects ?? 0;
}

function runChanges(runs: readonly { n: number }[] | undefined): number {
  let n = 0;
  for (const run of runs ?? []) n += run.n;
  return n;
}

/** The commit `commit` made for `write`, as the recent commits keep it. */
export function recentCommit(
  write: PendingWrite,
  commit: string,
  at: string,
  written?: { subject: string; changes: RecentChange[]; count: number },
): RecentCommit {
  // a write with runs is listed as the publication read it (its changes are beside the state)
  if (written)
    return {
      commit,
      at,
      target: write.target,
      author: cutTo(AUTHOR_CHARS)(write.author.name),
      subject: cutTo(SUBJECT_CHARS)(written.subject),
      changes: written.changes.map((change) => ({ op: change.op, path: cutTo(PATH_CHARS)(change.path) })),
      more: Math.max(0, written.count - written.changes.length),
    };
  const changes = write.changes ?? [];
  const prefix = write.targetPath === '.' ? '' : `${write.targetPath}/`;
  return {
    commit,
    at,
    target: write.target,
    author: cutTo(AUTHOR_CHARS)(write.author.name),
    subject: cutTo(SUBJECT_CHARS)(write.message.split('\n', 1)[0] ?? ''),
    // a cut path names no object: the view shows it as it is, the commit body in Git names it whole
    changes: changes.slice(0, CHANGES_LISTED).map((change) => ({
      op: change.operation,
      path: cutTo(PATH_CHARS)(
        change.path.startsWith(prefix) ? change.path.slice(prefix.length) : change.path,
      ),
    })),
    // the changes of runs are read at publication only: counted, not listed
    more:
      Math.max(0, changes.length - CHANGES_LISTED) +
      runChanges(write.runs) +
      (write.changes || write.runs ? 0 : (write.snapshot?.objects ?? 0)),
  };
}
