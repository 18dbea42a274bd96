/**
 * One test per decision row of the seed's validation table ("Validation scenarios"), on a fake clock
 * (`at` values) with the effects recorded from `owedEffects`.
 */
import {
  admissionCheck,
  type BranchCommand,
  decide,
  evolve,
  initialState,
  nextDeadline,
  owedEffects,
  pendingWrites,
  publicationStatus,
  saveStatus,
} from '../../../shared/branch';
import { deciderSpec } from '../../support/decider-spec';
import { admit, at, Branch, ofType, registerSave, shaOf, snapshot, tick, withdraw } from './scenario';

const spec = deciderSpec({ decide, evolve, initialState });

/** alice saves s1, edits once, the save's 2 s window closes at 3 s and the first attempt is planned. */
function heldSaveBranch(): Branch {
  return new Branch().run(registerSave(0, 's1', { message: 'release web' }), admit(1), tick(3));
}

describe('validation scenarios of the seed', () => {
  it("a save's first push fails, then the branch goes idle: the retry publishes and resolves the same save without another edit", () => {
    const branch = heldSaveBranch().answer(4, 'transient');
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'publication-retry', dueAt: at(14) });

    spec
      .given(branch.history)
      .when(tick(14))
      .thenContains({ type: 'PublicationPlanned', reason: 'retry-due' });
    branch.run(tick(14));
    const writeId = pendingWrites(branch.state)[0]!.id;
    branch.answer(15);
    expect(branch.last).toContainEqual(
      expect.objectContaining({
        type: 'SaveResolved',
        saveId: 's1',
        outcome: 'Committed',
        commit: shaOf(writeId),
      }),
    );
    expect(saveStatus(branch.state, 's1', at(15))).toMatchObject({ phase: 'Resolved', outcome: 'Committed' });
  });

  it('a held save outlives the safety window: withdrawal is ignored as held and the retry stays scheduled', () => {
    const branch = heldSaveBranch().answer(4, 'transient');
    branch.run(tick(14)).answer(15, 'transient');
    spec
      .given(branch.history)
      .when(withdraw(500, 's1'))
      .thenContains(
        { type: 'DeadlineFired', purpose: 'publication-retry' },
        { type: 'WithdrawIgnored', saveId: 's1', held: 'WaitingForPush' },
        { type: 'PublicationPlanned', reason: 'retry-due' },
      );
    const { facts, state } = spec.given(branch.history).when(withdraw(20, 's1')).outcome();
    expect(facts).toEqual([{ type: 'WithdrawIgnored', at: at(20), saveId: 's1', held: 'WaitingForPush' }]);
    expect(saveStatus(state, 's1', at(20))?.phase).toBe('WaitingForPush');
    expect(nextDeadline(state)).toMatchObject({ purpose: 'publication-retry', dueAt: at(35) });
  });

  it('a push fails under continuous arrivals: arrivals wait for the one retry deadline', () => {
    const branch = new Branch().run({
      type: 'ChangeSettings',
      at: at(0),
      target: 'prod',
      window: { idleTimeoutMs: 0, maxDurationMs: 0 },
    });
    branch.run(admit(0, { path: 'a.yaml' })).answer(1, 'transient');
    for (let second = 2; second < 11; second++) branch.run(admit(second, { path: `p${second}.yaml` }));
    expect(ofType(branch.history, 'PublicationPlanned')).toHaveLength(1);
    expect(pendingWrites(branch.state)).toHaveLength(10);
    branch.run(tick(11));
    expect(ofType(branch.last, 'PublicationPlanned')).toEqual([
      expect.objectContaining({
        reason: 'retry-due',
        writes: pendingWrites(branch.state).map((write) => write.id),
      }),
    ]);
  });

  it('the parent returns but publication still fails: new commits respect the one retry deadline while recovery stays open', () => {
    const branch = heldSaveBranch().answer(4, 'parentMissing', 'parent branch not found on the remote');
    expect(ofType(branch.last, 'ParentRecoveryOpened')).toHaveLength(1);
    branch.run(tick(14));
    const probe = owedEffects(branch.state).find((effect) => effect.type === 'probe-parent');
    expect(probe).toMatchObject({ type: 'probe-parent', probe: 'probe-1' });
    branch.run({ type: 'RecordProbeResult', at: at(15), probe: 'probe-1', found: true });
    expect(ofType(branch.last, 'PublicationPlanned')).toEqual([
      expect.objectContaining({ reason: 'parent-returned' }),
    ]);
    branch.answer(16, 'transient', 'connection reset');
    expect(ofType(branch.last, 'ParentRecoveryClosed')).toEqual([]);
    // failures went 1 (parent) → 2: the next deadline is 20 s away
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'publication-retry', dueAt: at(36) });

    const beforeArrivals = branch.history.length;
    branch.run(admit(17, { author: { name: 'Bob', username: 'bob' } }), tick(23));
    expect(ofType(branch.history.slice(beforeArrivals), 'PublicationPlanned')).toEqual([]);
    branch.run(tick(36));
    expect(ofType(branch.last, 'PublicationPlanned')).toEqual([
      expect.objectContaining({ reason: 'retry-due' }),
    ]);
    branch.answer(37);
    expect(ofType(branch.last, 'ParentRecoveryClosed')).toEqual([
      expect.objectContaining({ reason: 'writes-published' }),
    ]);
  });

  it('a window decided while the remote is failing stays pending with its attached save held', () => {
    const branch = new Branch().run(admit(0, { path: 'first.yaml' }), tick(5)).answer(6, 'transient');
    branch.run(registerSave(7, 's2'), admit(8, { path: 'second.yaml' }), tick(10));
    expect(ofType(branch.last, 'WriteDecided')).toEqual([
      expect.objectContaining({ write: expect.objectContaining({ saveIds: ['s2'] }) }),
    ]);
    expect(ofType(branch.last, 'PublicationPlanned')).toEqual([]);
    expect(publicationStatus(branch.state, at(10))).toMatchObject({ pendingWrites: 2, retryAt: at(16) });
    const held = saveStatus(branch.state, 's2', at(10));
    expect(held?.phase).toBe('WaitingForPush');
    expect(held?.conditions.find((c) => c.type === 'Ready')?.message).toContain('connection refused');
  });

  it('intake fills during a publication failure: accepted work stays, producers pause, the retry stays active', () => {
    const branch = new Branch().run({ type: 'ConfigureBranch', at: at(0), limits: { bufferBytes: 10_000 } });
    branch.run(admit(0, { path: 'a.yaml', bytes: 1000 }), tick(5)).answer(6, 'transient');
    branch.run(admit(7, { path: 'b.yaml', bytes: 4000 }));
    expect(admissionCheck(publicationStatus(branch.state, at(7)), { bytes: 4000, items: 1 }, at(7))).toEqual({
      admit: false,
      retryAfterSeconds: 9,
      reason: 'budget-full',
    });
    // an admit signaled concurrently still reaches the branch: it is accepted and pauses intake
    branch.run(admit(8, { path: 'c.yaml', bytes: 4000 }));
    expect(ofType(branch.last, 'IntakePaused')).toEqual([expect.objectContaining({ limitBytes: 10_000 })]);
    expect(
      admissionCheck(publicationStatus(branch.state, at(8)), { bytes: 1, items: 1 }, at(8)),
    ).toMatchObject({
      admit: false,
      reason: 'intake-paused',
    });
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'window-close' });
    branch.run(tick(13), tick(16)).answer(17);
    expect(ofType(branch.last, 'IntakeResumed')).toEqual([
      expect.objectContaining({ reason: 'publication-landed' }),
    ]);
    const published = ofType(branch.history, 'WriteDecided').flatMap((fact) => fact.write.changes ?? []);
    expect(published.map((change) => change.path).sort()).toEqual(['a.yaml', 'b.yaml', 'c.yaml']);
  });

  it('a timer that moved or fires twice does not close another window', () => {
    const branch = new Branch().run(admit(0, { path: 'a.yaml' }), admit(3, { path: 'b.yaml' }));
    spec.given(branch.history).when(tick(5)).thenNothingHappened();
    branch.run(tick(8));
    expect(ofType(branch.last, 'WindowClosed')).toEqual([
      expect.objectContaining({ reason: 'idle-timeout' }),
    ]);
    branch.run(admit(8.5, { path: 'c.yaml', author: { name: 'Bob', username: 'bob' } }));
    spec.given(branch.history).when(tick(8)).thenNothingHappened();
    spec.given(branch.history).when(tick(9)).thenNothingHappened();
  });

  it('recorded decisions replayed without effects rebuild the identical state and the same owed effects', () => {
    const branch = heldSaveBranch()
      .answer(4, 'transient')
      .run(admit(5, { path: 'x.yaml' }), tick(14));
    const replayed = branch.replayed();
    expect(replayed).toEqual(branch.state);
    expect(owedEffects(replayed)).toEqual(owedEffects(branch.state));
    expect(nextDeadline(replayed)).toEqual(nextDeadline(branch.state));
  });

  it("a fresh snapshot after an accepted save keeps the save's membership and its pending answer", () => {
    const branch = new Branch().run(admit(0, { path: 'a.yaml' }), tick(5)).answer(6, 'transient');
    branch.run(registerSave(7, 's1', { message: 'my edit' }), admit(7, { path: 'b.yaml' }));
    branch.run(snapshot(8, '100'), snapshot(9, '101'));
    const closed = ofType(branch.history, 'WindowClosed').at(-1);
    expect(closed).toMatchObject({ reason: 'resync-before-apply', saveId: 's1' });
    expect(ofType(branch.history, 'SnapshotSuperseded')).toHaveLength(1);
    const saveWrite = pendingWrites(branch.state).find((write) => write.saveIds.includes('s1'));
    expect(saveWrite).toMatchObject({ kind: 'window', message: 'my edit' });
    branch.run(tick(16)).answer(17);
    expect(ofType(branch.last, 'SaveResolved')).toEqual([
      expect.objectContaining({ saveId: 's1', outcome: 'Committed', commit: shaOf(saveWrite!.id) }),
    ]);
  });

  it('the parent disappears again during recovery: an earlier publication cannot clear newer retained writes', () => {
    const branch = heldSaveBranch().answer(4, 'parentMissing');
    branch.run(tick(14), { type: 'RecordProbeResult', at: at(15), probe: 'probe-1', found: true });
    const firstWrite = pendingWrites(branch.state)[0]!.id;
    branch.run(admit(15.5, { path: 'newer.yaml', author: { name: 'Bob', username: 'bob' } }), tick(21));
    expect(pendingWrites(branch.state)).toHaveLength(2);
    branch.answer(22, 'parentMissing');
    expect(branch.state.publication.recovery).toEqual({ openedAt: at(4), parentSeen: false });
    branch.run(tick(42));
    expect(owedEffects(branch.state)).toEqual([expect.objectContaining({ type: 'probe-parent' })]);
    branch.run({ type: 'RecordProbeResult', at: at(43), probe: 'probe-2', found: true });
    // the attempt only carried the write decided before it: its success leaves the newer one retained
    const attempt = owedEffects(branch.state)[0]!;
    expect(attempt).toMatchObject({ type: 'publish' });
    const command: BranchCommand = {
      type: 'RecordPublicationResult',
      at: at(44),
      attempt: (attempt as { attempt: string }).attempt,
      result: { outcome: 'published', commits: { [firstWrite]: shaOf(firstWrite) }, head: shaOf(firstWrite) },
    };
    branch.run(command);
    expect(pendingWrites(branch.state).map((write) => write.changes?.[0]?.path)).toEqual(['newer.yaml']);
    expect(ofType(branch.last, 'ParentRecoveryClosed')).toEqual([]);
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'push-cooldown', dueAt: at(54) });
  });

  it('a policy change during a window or a push keeps its effective point', () => {
    const branch = new Branch().run(admit(0, { path: 'a.yaml', operation: 'delete' }));
    branch.run({
      type: 'ChangeSettings',
      at: at(1),
      target: 'prod',
      window: { idleTimeoutMs: 1000, maxDurationMs: 1000 },
      prune: 'Always',
    });
    // the open window keeps the timing it opened with (idle 5 s)
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'window-close', dueAt: at(5) });
    branch.run(tick(5));
    const inFlight = owedEffects(branch.state)[0] as { writes: { prune: string }[] };
    expect(inFlight.writes[0]?.prune).toBe('Always');
    // tightening during the push reaches the retained write before its next attempt; loosening never does
    branch.run({ type: 'ChangeSettings', at: at(6), target: 'prod', prune: 'Never' });
    expect(ofType(branch.last, 'PruneTightened')).toHaveLength(1);
    branch.run({ type: 'ChangeSettings', at: at(7), target: 'prod', prune: 'Always' });
    expect(ofType(branch.last, 'PruneTightened')).toEqual([]);
    expect(pendingWrites(branch.state)[0]?.prune).toBe('Never');
    // the next window uses the new timing
    branch.run(admit(8, { path: 'b.yaml' }));
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'window-close', dueAt: at(9) });
  });

  it('a resource update and a save on independent paths: the save only claims the window it attaches to', () => {
    // the save arrives first: it attaches to the window the later edit opens
    const first = new Branch().run(registerSave(0, 's1'), admit(1, { path: 'a.yaml' }), tick(3));
    expect(ofType(first.history, 'WindowClosed')).toEqual([expect.objectContaining({ saveId: 's1' })]);
    // the edit's window already closed when the save arrives: the save claims nothing of it
    const late = new Branch().run(admit(0, { path: 'a.yaml' }), tick(5), registerSave(6, 's2'), tick(8));
    expect(ofType(late.last, 'SaveResolved')).toEqual([
      expect.objectContaining({ saveId: 's2', outcome: 'NoWindow' }),
    ]);
  });
});
