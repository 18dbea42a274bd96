// What changed, as the branch keeps it: changes per minute in a ring of the last hour, and its
// latest commits, each bounded in bytes however long the authors, messages and paths it records.
import { FIELD_CHARS, type PendingWrite } from '../../../shared/branch';
import {
  ACTIVITY_MINUTES,
  countInMinute,
  lastHour,
  type MinuteCounts,
  RECENT_COMMITS_KEPT,
  recentCommit,
} from '../../../shared/branch/record-activity';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 3, 10, 0, 0);

const total = (counts: MinuteCounts | undefined, nowMs: number, series: 'accepted' | 'published') =>
  lastHour(counts, nowMs).reduce((sum, slot) => sum + slot[series], 0);

describe('changes per minute', () => {
  it('counts each change in its minute and shows the hour ending now, oldest first', () => {
    let counts = countInMinute(undefined, 'accepted', T0 + 5_000, 3);
    counts = countInMinute(counts, 'accepted', T0 + 50_000, 2);
    counts = countInMinute(counts, 'published', T0 + 2 * MINUTE + 1, 4);
    const hour = lastHour(counts, T0 + 2 * MINUTE + 30_000);
    expect(hour).toHaveLength(ACTIVITY_MINUTES);
    expect(hour.at(-1)).toEqual({
      minute: new Date(T0 + 2 * MINUTE).toISOString(),
      accepted: 0,
      published: 4,
    });
    expect(hour.at(-3)).toEqual({ minute: new Date(T0).toISOString(), accepted: 5, published: 0 });
  });

  it('lands a count stamped before the newest minute in its own minute (another instance, a late signal)', () => {
    let counts = countInMinute(undefined, 'accepted', T0 + 10 * MINUTE, 1);
    counts = countInMinute(counts, 'accepted', T0 + 7 * MINUTE, 2);
    const hour = lastHour(counts, T0 + 10 * MINUTE);
    expect(hour.at(-1)!.accepted).toBe(1);
    expect(hour.at(-4)!.accepted).toBe(2);
  });

  it('forgets minutes older than the hour, and keeps no slot for them', () => {
    let counts: MinuteCounts | undefined;
    for (let minute = 0; minute < 3 * ACTIVITY_MINUTES; minute++)
      counts = countInMinute(counts, 'accepted', T0 + minute * MINUTE, 1);
    expect(counts!.accepted).toHaveLength(ACTIVITY_MINUTES);
    const now = T0 + (3 * ACTIVITY_MINUTES - 1) * MINUTE;
    expect(total(counts, now, 'accepted')).toBe(ACTIVITY_MINUTES);
    // a count older than the hour changes nothing
    expect(countInMinute(counts, 'accepted', now - ACTIVITY_MINUTES * MINUTE, 5)).toEqual(counts);
    // after an idle hour, the next count leaves a single slot
    const later = countInMinute(counts, 'published', now + 2 * ACTIVITY_MINUTES * MINUTE, 1);
    expect(later).toEqual({ minute: later.minute, accepted: [], published: [1] });
    expect(total(counts, now + ACTIVITY_MINUTES * MINUTE, 'accepted')).toBe(0);
  });
});

describe('recent commits', () => {
  const longest: PendingWrite = {
    id: 'w-1',
    kind: 'window',
    target: 't'.repeat(63),
    targetPath: 'clusters/prod',
    author: { name: 'n'.repeat(FIELD_CHARS.authorName), username: 'u'.repeat(FIELD_CHARS.username) },
    attribution: 'audit',
    message: `${'m'.repeat(10_000)}\n\nbody`,
    decidedAt: new Date(T0).toISOString(),
    prune: 'Never',
    allowEmpty: false,
    changes: Array.from({ length: 500 }, (_, i) => ({
      path: `clusters/prod/${String(i).padStart(4, '0')}${'p'.repeat(FIELD_CHARS.changePath - 20)}`,
      operation: 'upsert' as const,
      bytes: 10,
    })),
    saveIds: [],
    bytes: 5000,
    items: 500,
  };

  it('keep a bounded summary of a write of the longest fields', () => {
    const commit = recentCommit(longest, 'a'.repeat(40), new Date(T0).toISOString());
    expect(commit.changes).toHaveLength(3);
    expect(commit.more).toBe(497);
    expect(commit.subject.endsWith('…')).toBe(true);
    // the branch keeps RECENT_COMMITS_KEPT of them: at most about 13 KB of its state (a few hundred bytes each, typically)
    expect(Buffer.byteLength(JSON.stringify(commit)) * RECENT_COMMITS_KEPT).toBeLessThan(13_500);
  });

  it('name changes inside the target and keep a whole path as it is', () => {
    const commit = recentCommit(
      {
        ...longest,
        changes: [{ path: 'clusters/prod/shop/configmaps/web.yaml', operation: 'delete', bytes: 0 }],
      },
      'b'.repeat(40),
      new Date(T0).toISOString(),
    );
    expect(commit.changes).toEqual([{ op: 'delete', path: 'shop/configmaps/web.yaml' }]);
    expect(commit.more).toBe(0);
  });
});
