import {
  admissionCheck,
  branchCommandSchema,
  decide,
  evolve,
  InvalidBranchCommand,
  initialState,
  publicationStatus,
  saveStatus,
  withdrawAnswer,
} from '../../../shared/branch';
import { deciderSpec } from '../../support/decider-spec';
import { admit, at, Branch, registerSave, tick } from './scenario';

const spec = deciderSpec({ decide, evolve, initialState });

describe('commands as JSON', () => {
  it('accepts every command the scenarios send, after a JSON round trip', () => {
    for (const command of [
      admit(0),
      registerSave(0, 's1', { request: { namespace: 'a', name: 'b' } }),
      tick(1),
    ]) {
      expect(branchCommandSchema.parse(JSON.parse(JSON.stringify(command)))).toEqual(command);
    }
  });

  it.each([
    [{ ...admit(0), at: '2026-01-01 00:00:00' }, 'at'],
    [{ ...admit(0), changes: [] }, 'changes'],
    [{ ...admit(0), changes: [{ path: 'a.yaml', operation: 'upsert', bytes: -1 }] }, 'changes.0.bytes'],
    [{ type: 'Explode', at: at(0) }, 'type'],
    [{ ...registerSave(0, 's1'), attachTimeoutMs: 301_000 }, 'attachTimeoutMs'],
    [{ type: 'ConfigureBranch', at: at(0), limits: { retryMaxMs: Number.NaN } }, 'limits.retryMaxMs'],
  ])('refuses a bad command naming the field (%#)', (command, field) => {
    const parsed = branchCommandSchema.safeParse(command);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });

  it('decide throws a typed error for a time that bypassed the schema', () => {
    spec.given([]).when({ type: 'Tick', at: 'yesterday' }).thenThrows(InvalidBranchCommand);
  });

  it('reads instants with offsets and fractions the same as their UTC form', () => {
    const branch = new Branch().run(admit(0));
    spec
      .given(branch.history)
      .when({ type: 'Tick', at: '2026-01-01T01:00:04.999+01:00' })
      .thenNothingHappened();
    spec
      .given(branch.history)
      .when({ type: 'Tick', at: '2025-12-31T19:00:05-05:00' })
      .thenContains({ type: 'WindowClosed' });
  });
});

describe('status views', () => {
  it('reports a healthy branch as Ready with its open window', () => {
    const status = publicationStatus(new Branch().run(admit(0)).state, at(1));
    expect(status).toMatchObject({
      pendingWrites: 0,
      intakePaused: false,
      parentMissing: false,
      window: { open: true, author: 'alice', changes: 1, closesAt: at(5) },
    });
    expect(status.conditions[0]).toMatchObject({ type: 'Ready', status: 'True' });
  });

  it('reports a failing branch as progressing with its cause, retry time and oldest pending write', () => {
    const branch = new Branch().run(admit(0), tick(5)).answer(6, 'parentMissing', 'parent branch not found');
    const status = publicationStatus(branch.state, at(8));
    expect(status).toMatchObject({
      pendingWrites: 1,
      pendingBytes: 100,
      oldestPendingSince: at(5),
      retryAt: at(16),
      lastError: 'parent branch not found',
      parentMissing: true,
    });
    expect(status.conditions[0]).toMatchObject({
      type: 'Ready',
      status: 'False',
      reason: 'ParentBranchNotFound',
    });
    expect(status.conditions[0]?.message).toContain('next attempt at 2026-01-01T00:00:16.000Z (in 8s)');
  });

  it('shows a save in progress with kstatus conditions and Pushed unknown', () => {
    const view = saveStatus(new Branch().run(registerSave(0, 's1')).state, 's1', at(1));
    expect(view?.phase).toBe('WaitingForWindow');
    expect(view?.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'False'],
      ['Reconciling', 'True'],
      ['Stalled', 'False'],
      ['Pushed', 'Unknown'],
    ]);
  });

  it('shows a committed save as Ready and Pushed, and a withdrawn one as Stalled', () => {
    const branch = new Branch().run(registerSave(0, 's1'), admit(1), tick(3)).answer(4);
    expect(
      saveStatus(branch.state, 's1', at(4))?.conditions.map((c) => [c.type, c.status, c.reason]),
    ).toEqual([
      ['Ready', 'True', 'Committed'],
      ['Reconciling', 'False', 'Committed'],
      ['Stalled', 'False', 'Committed'],
      ['Pushed', 'True', 'Pushed'],
    ]);
    const withdrawn = new Branch().run(registerSave(0, 's2'), {
      type: 'WithdrawSave',
      at: at(1),
      saveId: 's2',
    });
    expect(
      saveStatus(withdrawn.state, 's2', at(1))?.conditions.find((c) => c.type === 'Stalled')?.status,
    ).toBe('True');
  });

  it('answers unknown saves with nothing', () => {
    expect(saveStatus(initialState(), 'nope', at(0))).toBeUndefined();
  });

  it('derives the withdraw answer: Withdrawn when waiting or unknown, held while its work is owed', () => {
    const branch = new Branch().run(registerSave(0, 'waiting', { attachTimeoutMs: 60_000 }));
    expect(withdrawAnswer(branch.state, 'waiting')).toEqual({ outcome: 'Withdrawn' });
    expect(withdrawAnswer(branch.state, 'unknown')).toEqual({ outcome: 'Withdrawn' });
    branch.run(admit(1));
    expect(withdrawAnswer(branch.state, 'waiting')).toEqual({ held: 'CollectingWindow' });
  });
});

describe('admission', () => {
  const failing = () => {
    const branch = new Branch().run({ type: 'ConfigureBranch', at: at(0), limits: { bufferBytes: 8000 } });
    return branch.run(admit(0, { bytes: 1000 }), tick(5)).answer(6, 'transient');
  };

  it('admits what fits the budget while a retry is pending', () => {
    expect(
      admissionCheck(publicationStatus(failing().state, at(7)), { bytes: 4000, items: 1 }, at(7)),
    ).toEqual({ admit: true });
  });

  it('refuses a snapshot larger than the whole budget during an outage, with the time to the retry', () => {
    expect(
      admissionCheck(publicationStatus(failing().state, at(7)), { bytes: 9000, items: 1 }, at(7)),
    ).toEqual({
      admit: false,
      retryAfterSeconds: 9,
      reason: 'budget-full',
    });
  });

  it('counts the per-item overhead', () => {
    // used: 1000 + 1024; 4000 bytes in 3 items: 4000 + 3072 → 9096 > 8000
    expect(
      admissionCheck(publicationStatus(failing().state, at(7)), { bytes: 4000, items: 3 }, at(7)),
    ).toMatchObject({
      admit: false,
    });
  });
});
