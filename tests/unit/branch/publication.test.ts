import {
  admissionCheck,
  decide,
  evolve,
  initialState,
  nextDeadline,
  owedEffects,
  pendingWrites,
  publicationStatus,
} from '../../../shared/branch';
import { deciderSpec } from '../../support/decider-spec';
import { admit, at, Branch, bob, ofType, tick } from './scenario';

const spec = deciderSpec({ decide, evolve, initialState });

describe('publication', () => {
  it('publishes the first decided write at once, then spaces successful publications by the 10 s cooldown', () => {
    const branch = new Branch().run(admit(0, { path: 'a.yaml' }), tick(5));
    expect(ofType(branch.last, 'PublicationPlanned')).toEqual([
      expect.objectContaining({ reason: 'work-pending', attempt: 'attempt-1' }),
    ]);
    branch.answer(6).run(admit(7, { path: 'b.yaml' }), tick(12), admit(13, { path: 'c.yaml', author: bob }));
    expect(ofType(branch.history, 'PublicationPlanned')).toHaveLength(1);
    expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'push-cooldown', dueAt: at(16) });
    spec
      .given(branch.history)
      .when(tick(16))
      .thenContains({ type: 'PublicationPlanned', reason: 'cooldown-elapsed' });
  });

  it('retries on one schedule: 10 s doubling to 5 min, reset by a success', () => {
    const branch = new Branch().run(admit(0), tick(5));
    const delays: number[] = [];
    let now = 5;
    for (let failure = 0; failure < 7; failure++) {
      now += 1;
      branch.answer(now, 'transient');
      const failed = ofType(branch.last, 'PublicationFailed')[0]!;
      delays.push(failed.delayMs / 1000);
      now += failed.delayMs / 1000;
      branch.run(tick(now));
    }
    expect(delays).toEqual([10, 20, 40, 80, 160, 300, 300]);
    branch
      .answer(now + 1)
      .run(admit(now + 2, { path: 'next.yaml' }), tick(now + 20))
      .answer(now + 21, 'transient');
    expect(ofType(branch.last, 'PublicationFailed')[0]?.delayMs).toBe(10_000);
  });

  it('uses the configured retry schedule', () => {
    const branch = new Branch().run(
      { type: 'ConfigureBranch', at: at(0), limits: { retryInitialMs: 1000, retryMaxMs: 3000 } },
      admit(0),
      tick(5),
    );
    branch.answer(6, 'transient').run(tick(7)).answer(8, 'transient').run(tick(10)).answer(11, 'transient');
    expect(ofType(branch.history, 'PublicationFailed').map((fact) => fact.delayMs)).toEqual([
      1000, 2000, 3000,
    ]);
  });

  it.each([
    ['remoteMoved', 'remote-moved'],
    ['rejected', 'rejected'],
    ['transient', 'transient'],
  ] as const)('records a %s result as a failure of kind %s that keeps the work', (outcome, kind) => {
    const branch = new Branch().run(admit(0), tick(5)).answer(6, outcome, 'protected branch');
    expect(ofType(branch.last, 'PublicationFailed')).toEqual([
      expect.objectContaining({ cause: { kind, message: 'protected branch' }, retryAt: at(16) }),
    ]);
    expect(pendingWrites(branch.state)).toHaveLength(1);
  });

  it("waits for a remote's Retry-After when it is longer than the backoff, and no longer than the retry maximum", () => {
    const failWith = (retryAfterMs: number) => {
      const branch = new Branch().run(admit(0), tick(5));
      branch.run({
        type: 'RecordPublicationResult',
        at: at(6),
        attempt: 'attempt-1',
        result: { outcome: 'transient', cause: { message: 'HTTP 429' }, retryAfterMs },
      });
      return ofType(branch.last, 'PublicationFailed')[0];
    };
    expect(failWith(120_000)).toMatchObject({ retryAt: at(126), delayMs: 120_000 });
    expect(failWith(1_000)).toMatchObject({ retryAt: at(16), delayMs: 10_000 });
    expect(failWith(24 * 3600_000)).toMatchObject({ delayMs: 300_000 });
  });

  it('ignores a duplicate or stale publication result', () => {
    const branch = new Branch().run(admit(0), tick(5));
    const result = {
      type: 'RecordPublicationResult' as const,
      at: at(6),
      attempt: 'attempt-1',
      result: { outcome: 'transient' as const, cause: { message: 'timeout' } },
    };
    branch.run(result);
    spec
      .given(branch.history)
      .when({ ...result, at: at(7) })
      .thenNothingHappened();
    spec
      .given(branch.history)
      .when({ ...result, at: at(7), attempt: 'attempt-9' })
      .thenNothingHappened();
  });

  it('settles a lost reply from remote evidence like a publication', () => {
    const branch = new Branch().run(admit(0), tick(5));
    const writeId = pendingWrites(branch.state)[0]!.id;
    spec
      .given(branch.history)
      .when({
        type: 'RecordPublicationResult',
        at: at(6),
        attempt: 'attempt-1',
        result: { outcome: 'settled', commits: { [writeId]: 'abc' }, head: 'abc' },
      })
      .thenContains({ type: 'PublicationConfirmed', evidence: 'remote-settled', head: 'abc' });
  });

  it('clears the retry when nothing is owed any more', () => {
    const branch = new Branch().run(admit(0), tick(5)).answer(6, 'transient').run(tick(16));
    const writeId = pendingWrites(branch.state)[0]!.id;
    spec
      .given(branch.history)
      .when({
        type: 'RecordPublicationResult',
        at: at(17),
        attempt: 'attempt-2',
        result: { outcome: 'writeRefused', writeId, cause: { message: 'unsupported content' } },
      })
      .thenContains({ type: 'WriteRefused', writeId }, { type: 'RetryCleared', reason: 'nothing-owed' });
  });

  describe('parent recovery', () => {
    const missing = () =>
      new Branch().run(admit(0), tick(5)).answer(6, 'parentMissing', 'parent branch not found');

    it('opens when publication fails for a missing parent with work pending, and probes on the retry deadline', () => {
      const branch = missing();
      expect(ofType(branch.last, 'ParentRecoveryOpened')).toHaveLength(1);
      expect(nextDeadline(branch.state)).toMatchObject({ purpose: 'parent-probe', dueAt: at(16) });
      spec
        .given(branch.history)
        .when(tick(16))
        .thenContains({ type: 'ParentProbePlanned', probe: 'probe-1' });
    });

    it('a probe that still misses the parent waits for the next deadline', () => {
      const branch = missing().run(tick(16), {
        type: 'RecordProbeResult',
        at: at(17),
        probe: 'probe-1',
        found: false,
      });
      expect(ofType(branch.last, 'ParentProbed')).toEqual([
        expect.objectContaining({ found: false, retryAt: at(37) }),
      ]);
      expect(owedEffects(branch.state)).toEqual([]);
    });

    it('a settings change of the parent makes the probe due at once', () => {
      spec
        .given(missing().history)
        .when({ type: 'ChangeSettings', at: at(7), target: 'prod', parentBranch: 'release' })
        .thenContains(
          { type: 'ParentBranchChanged', parentBranch: 'release', probeDueAt: at(7) },
          { type: 'ParentProbePlanned', parentBranch: 'release' },
        );
    });
  });

  describe('intake budget', () => {
    it('a healthy branch never pauses, whatever it holds', () => {
      const branch = new Branch().run({ type: 'ConfigureBranch', at: at(0), limits: { bufferBytes: 1000 } });
      branch.run(admit(0, { path: 'a.yaml', bytes: 5000 }));
      expect(branch.state.publication.intakePaused).toBe(false);
      expect(
        admissionCheck(publicationStatus(branch.state, at(1)), { bytes: 50_000, items: 1 }, at(1)),
      ).toEqual({ admit: true });
    });

    it('overshoots the budget by at most the payloads admitted against the same cached status', () => {
      const branch = new Branch().run({
        type: 'ConfigureBranch',
        at: at(0),
        limits: { bufferBytes: 10_000 },
      });
      branch.run(admit(0, { path: 'a.yaml', bytes: 1000 }), tick(5)).answer(6, 'transient');
      // the HTTP layer caches one status and admits five producers against it, each of which fits alone
      const cached = publicationStatus(branch.state, at(7));
      const payloads = [4000, 4000, 4000, 4000, 4000];
      for (const bytes of payloads)
        expect(admissionCheck(cached, { bytes, items: 1 }, at(7))).toEqual({ admit: true });
      payloads.forEach((bytes, i) => {
        branch.run(admit(7, { path: `p${i}.yaml`, bytes }));
      });
      const overshoot = publicationStatus(branch.state, at(7)).budget.usedBytes - 10_000;
      expect(overshoot).toBeGreaterThan(0);
      expect(overshoot).toBeLessThanOrEqual(payloads.reduce((sum, bytes) => sum + bytes + 1024, 0));
      expect(branch.state.publication.intakePaused).toBe(true);
      expect(
        admissionCheck(publicationStatus(branch.state, at(7)), { bytes: 1, items: 1 }, at(7)),
      ).toMatchObject({ admit: false });
    });

    it('resumes when nothing is owed any more', () => {
      const branch = new Branch().run({ type: 'ConfigureBranch', at: at(0), limits: { bufferBytes: 1000 } });
      branch.run(admit(0, { bytes: 5000 }), tick(5)).answer(6, 'transient');
      expect(ofType(branch.last, 'IntakePaused')).toHaveLength(1);
      branch.run(tick(16));
      const writeId = pendingWrites(branch.state)[0]!.id;
      branch.run({
        type: 'RecordPublicationResult',
        at: at(17),
        attempt: 'attempt-2',
        result: { outcome: 'writeRefused', writeId, cause: { message: 'unsupported' } },
      });
      expect(ofType(branch.last, 'IntakeResumed')).toEqual([
        expect.objectContaining({ reason: 'nothing-owed' }),
      ]);
    });
  });

  describe('observing the remote', () => {
    it('a refresh owes one observation, and the observed head is the base of the next attempt', () => {
      const branch = new Branch().run({ type: 'RefreshRemote', at: at(0) });
      expect(owedEffects(branch.state)).toEqual([{ type: 'observe-remote', observation: 'observation-1' }]);
      spec
        .given(branch.history)
        .when({ type: 'RefreshRemote', at: at(1) })
        .thenNothingHappened();
      branch.run(
        { type: 'RecordObservation', at: at(2), observation: 'observation-1', head: 'cafe' },
        admit(3),
        tick(8),
      );
      expect(owedEffects(branch.state)).toEqual([expect.objectContaining({ type: 'publish', base: 'cafe' })]);
    });
  });
});
