import fc from 'fast-check';
import { decideProjection } from '../../../shared/kube/decide-projection';
import type { SaveCondition, SaveStatus } from '../../../shared/kube/save-status';

const SHA = 'a'.repeat(40);

function condition(
  type: SaveCondition['type'],
  status: SaveCondition['status'],
  reason: string,
  at: string,
): SaveCondition {
  return { type, status, reason, message: '', lastTransitionTime: at };
}

function progress(phase: Exclude<SaveStatus['phase'], 'Resolved'>, at: string, message?: string): SaveStatus {
  return {
    phase,
    ...(message === undefined ? {} : { message }),
    conditions: [
      condition('Ready', 'False', phase, at),
      condition('Reconciling', 'True', phase, at),
      condition('Stalled', 'False', phase, at),
      condition('Pushed', 'Unknown', phase, at),
    ],
  };
}

function committed(at: string): SaveStatus {
  return {
    phase: 'Resolved',
    outcome: 'Committed',
    commit: SHA,
    branch: 'main',
    conditions: [
      condition('Ready', 'True', 'Committed', at),
      condition('Reconciling', 'False', 'Committed', at),
      condition('Stalled', 'False', 'Committed', at),
      condition('Pushed', 'True', 'Pushed', at),
    ],
  };
}

/** One save's life, in the order the branch produces its statuses. */
const LIFE: SaveStatus[] = [
  progress('WaitingForWindow', '2026-11-29T10:00:00Z'),
  progress('CollectingWindow', '2026-11-29T10:00:01Z'),
  progress('WaitingForPush', '2026-11-29T10:00:03Z'),
  committed('2026-11-29T10:05:00Z'),
];

describe('deciding whether a save status projection moves backwards', () => {
  it('writes when the CommitRequest shows no status yet', () => {
    expect(decideProjection({ live: undefined, next: LIFE[0]! })).toEqual({ decision: 'Write' });
  });

  it('writes a later phase over an earlier one', () => {
    expect(decideProjection({ live: LIFE[1], next: LIFE[2]! })).toEqual({ decision: 'Write' });
  });

  it('reports an identical status as already projected, whatever the order of its conditions', () => {
    const reordered = { ...LIFE[2]!, conditions: [...LIFE[2]!.conditions].reverse() };
    expect(decideProjection({ live: LIFE[2], next: reordered })).toEqual({ decision: 'AlreadyProjected' });
  });

  it('never overwrites a Resolved outcome with an earlier phase', () => {
    expect(decideProjection({ live: LIFE[3], next: LIFE[2]! })).toEqual({
      decision: 'Backwards',
      reason: 'resolved-outcome-is-final',
    });
  });

  it('never replaces a Resolved outcome with another outcome', () => {
    const failed: SaveStatus = { ...committed('2026-11-29T10:06:00Z'), outcome: 'Failed', commit: undefined };
    expect(decideProjection({ live: LIFE[3], next: failed })).toEqual({
      decision: 'Backwards',
      reason: 'resolved-outcome-is-final',
    });
  });

  it('reports the same outcome rendered again later as already projected, keeping the first', () => {
    expect(decideProjection({ live: LIFE[3], next: committed('2026-11-29T10:09:00Z') })).toEqual({
      decision: 'AlreadyProjected',
    });
  });

  it('refuses an earlier phase delivered late', () => {
    expect(decideProjection({ live: LIFE[2], next: LIFE[0]! })).toEqual({
      decision: 'Backwards',
      reason: 'earlier-phase',
    });
  });

  it('within one phase, refuses a condition older than the one shown', () => {
    const older = progress('WaitingForPush', '2026-11-29T10:00:02Z', 'push failed: remote unavailable');
    expect(decideProjection({ live: LIFE[2], next: older })).toEqual({
      decision: 'Backwards',
      reason: 'older-condition',
    });
  });

  it('within one phase, writes a newer message of a held save', () => {
    const newer = progress('WaitingForPush', '2026-11-29T10:00:03Z', 'push failed: remote unavailable');
    expect(decideProjection({ live: LIFE[2], next: newer })).toEqual({ decision: 'Write' });
  });

  it('compares transition times as instants, not as text', () => {
    const sameInstant = progress('WaitingForPush', '2026-11-29T11:00:03+01:00');
    expect(decideProjection({ live: LIFE[2], next: sameInstant })).toEqual({ decision: 'AlreadyProjected' });
  });

  it('for any two points of one life, writes only forwards', () => {
    const index = fc.integer({ min: 0, max: LIFE.length - 1 });
    fc.assert(
      fc.property(index, index, (liveAt, nextAt) => {
        const { decision } = decideProjection({ live: LIFE[liveAt], next: LIFE[nextAt]! });
        const expected = nextAt > liveAt ? 'Write' : nextAt === liveAt ? 'AlreadyProjected' : 'Backwards';
        expect(decision).toBe(expected);
      }),
    );
  });
});
