import { DRIVER_HEARTBEAT_MS, nextDriverStep } from '../../../../shared/app/driver/driver-step';
import type { BranchPlan } from '../../../../shared/app/entity/branch-operations';
import type { PlannedEffect } from '../../../../shared/branch';

const at = '2026-01-01T00:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(at) + ms).toISOString();

function plan(effects: PlannedEffect[], nextDeadline?: string): BranchPlan {
  return { at, effects, nextDeadline, status: {} as BranchPlan['status'] };
}

const publish: PlannedEffect = { type: 'publish', attempt: '1', writes: 2 };
const probe: PlannedEffect = { type: 'probe-parent', probe: '1', parentBranch: 'release' };
const project = (saveId: string): PlannedEffect => ({
  type: 'project',
  saveId,
  request: { namespace: 'ns', name: saveId },
  status: { id: saveId, phase: 'Resolved', outcome: 'Committed', conditions: [] },
});

describe("the driver's next step", () => {
  it('publishes before it probes or projects', () => {
    expect(nextDriverStep(plan([project('a'), probe, publish])).type).toBe('publish');
    expect(nextDriverStep(plan([project('a'), probe])).type).toBe('probe-parent');
  });

  it('projects every resolved save at once', () => {
    expect(nextDriverStep(plan([project('a'), project('b')]))).toMatchObject({
      type: 'project',
      effects: [{ saveId: 'a' }, { saveId: 'b' }],
    });
  });

  it('sleeps until the next deadline when nothing is owed', () => {
    expect(nextDriverStep(plan([], later(5000)))).toEqual({
      type: 'sleep',
      until: later(5000),
      reason: 'deadline',
    });
  });

  it('sleeps until the heartbeat when no deadline is recorded or it is further away', () => {
    expect(nextDriverStep(plan([]))).toEqual({
      type: 'sleep',
      until: later(DRIVER_HEARTBEAT_MS),
      reason: 'heartbeat',
    });
    expect(nextDriverStep(plan([], later(DRIVER_HEARTBEAT_MS * 2))).type === 'sleep').toBe(true);
    expect(nextDriverStep(plan([], later(DRIVER_HEARTBEAT_MS * 2)))).toMatchObject({ reason: 'heartbeat' });
  });

  it('defers projections after a failure and wakes when the deferral ends', () => {
    const step = nextDriverStep(plan([project('a')], later(60_000)), {
      projectionsDeferredUntil: later(30_000),
    });
    expect(step).toEqual({ type: 'sleep', until: later(30_000), reason: 'deadline' });
    expect(nextDriverStep(plan([project('a')]), { projectionsDeferredUntil: at }).type).toBe('project');
  });
});
