import { decide, evolve, initialState, owedEffects, pendingWrites, saveStatus } from '../../../shared/branch';
import { deciderSpec } from '../../support/decider-spec';
import { admit, at, Branch, bob, history, ofType, registerSave, shaOf, tick, withdraw } from './scenario';

const spec = deciderSpec({ decide, evolve, initialState });

describe('saves', () => {
  describe('registration', () => {
    it('stamps a first-come sequence and an attach deadline from the default 2 s timeout', () => {
      spec
        .given(history(registerSave(0, 'first')))
        .when(registerSave(1, 'second'))
        .thenContains({
          type: 'SaveRegistered',
          save: { id: 'second', seq: 2, attachDeadline: at(3), maxDurationMs: 2000 },
        });
    });

    it('ignores a duplicate save id: nothing restarts', () => {
      spec
        .given(history(registerSave(0, 's1')))
        .when(registerSave(1, 's1', { attachTimeoutMs: 60_000 }))
        .thenNothingHappened();
    });

    it('a resolved id keeps its recorded outcome when registered again', () => {
      const branch = new Branch().run(registerSave(0, 's1'), tick(2));
      spec.given(branch.history).when(registerSave(3, 's1')).thenNothingHappened();
      expect(saveStatus(branch.state, 's1', at(3))?.outcome).toBe('NoWindow');
    });
  });

  describe('attaching', () => {
    it('attaches the waiting save with the lowest sequence first; the next one waits for another window', () => {
      const given = history(
        registerSave(0, 'late', { attachTimeoutMs: 10_000 }),
        registerSave(0.5, 'early-but-second'),
      );
      spec
        .given(given)
        .when(admit(1))
        .thenContains({ type: 'SaveAttached', saveId: 'late', windowId: 'window-1' });
    });

    it('attaches at once to an open window of its author, even with an attach timeout of zero', () => {
      spec
        .given(history(admit(0)))
        .when(registerSave(1, 's1', { attachTimeoutMs: 0 }))
        .thenContains({ type: 'SaveAttached', saveId: 's1', windowId: 'window-1' });
    });

    it('with an attach timeout of zero and no window, resolves NoWindow at once', () => {
      spec
        .given([])
        .when(registerSave(0, 's1', { attachTimeoutMs: 0 }))
        .thenContains(
          { type: 'SaveRegistered' },
          { type: 'SaveResolved', saveId: 's1', outcome: 'NoWindow', reason: 'attach-timeout' },
        );
    });

    it("Next closes the author's open window under that window's own message and waits for the next one", () => {
      const branch = new Branch().run(
        admit(0, { path: 'a.yaml' }),
        registerSave(1, 's1', { attach: 'Next', message: 'mine' }),
      );
      expect(ofType(branch.last, 'WindowClosed')).toEqual([
        expect.objectContaining({ reason: 'attach-next' }),
      ]);
      expect(ofType(branch.last, 'WriteDecided')[0]?.write).toMatchObject({
        message: '[UPDATE] a.yaml',
        saveIds: [],
      });
      branch.run(admit(2, { path: 'b.yaml' }));
      expect(ofType(branch.last, 'SaveAttached')).toEqual([
        expect.objectContaining({ saveId: 's1', windowId: 'window-2' }),
      ]);
    });

    it("replaces the window's timers with the save's own: maximum from the attach, no idle by default", () => {
      const branch = new Branch().run(
        admit(0),
        registerSave(1, 's1', { maxDurationMs: 10_000, message: 'ship it' }),
      );
      spec.given(branch.history).when(tick(6)).thenNothingHappened();
      spec
        .given(branch.history)
        .when(tick(11))
        .thenContains(
          { type: 'WindowClosed', reason: 'save-deadline', saveId: 's1' },
          { type: 'WriteDecided', write: { message: 'ship it', saveIds: ['s1'] } },
        );
    });

    it('decides expiry before attach on the same tick', () => {
      spec
        .given(history(registerSave(0, 's1')))
        .when(admit(2))
        .thenContains({ type: 'SaveResolved', saveId: 's1', outcome: 'NoWindow' }, { type: 'WindowOpened' });
      const facts = decide(admit(2), history(registerSave(0, 's1')).reduce(evolve, initialState()));
      expect(ofType(facts, 'SaveAttached')).toEqual([]);
    });

    it("never attaches to another author's window and expires as WindowMismatch after seeing one", () => {
      const given = history(admit(0, { author: bob }), registerSave(1, 's1'));
      expect(ofType(given, 'SaveSawForeignWindow')).toHaveLength(1);
      spec
        .given(given)
        .when(tick(3))
        .thenContains({ type: 'SaveResolved', saveId: 's1', outcome: 'WindowMismatch' });
    });
  });

  describe('a save without an author', () => {
    const committer = { name: 'kubescribe', email: 'kubescribe@localhost' };
    const unnamed = { author: committer, attribution: 'configured' as const };

    it("takes the author of its target's open window and attaches to it", () => {
      const branch = new Branch().run(admit(0, { author: bob }), registerSave(1, 's1', unnamed));
      expect(ofType(branch.last, 'SaveAttached')).toEqual([
        expect.objectContaining({ saveId: 's1', windowId: 'window-1' }),
      ]);
      expect(ofType(branch.last, 'SaveRegistered')[0]?.save).toMatchObject({
        author: bob,
        attribution: 'audit',
      });
    });

    it("keeps the committer when the open window is another target's", () => {
      const branch = new Branch().run(
        admit(0, { author: bob, target: 'staging', path: 'staging/a.yaml' }),
        registerSave(1, 's1', unnamed),
      );
      expect(branch.state.window).toMatchObject({ target: 'staging', author: bob });
      expect(ofType(branch.last, 'SaveRegistered')[0]?.save).toMatchObject({
        author: committer,
        attribution: 'configured',
      });
      expect(ofType(branch.last, 'SaveAttached')).toEqual([]);
    });
  });

  describe('a save that committed nothing', () => {
    it.each([
      [
        'WindowMismatch',
        () => new Branch().run(admit(0, { author: bob }), registerSave(1, 's1'), tick(3)),
        'author.username',
      ],
      ['NoWindow', () => new Branch().run(registerSave(0, 's1'), tick(3)), 'window.attachTimeout'],
    ])('%s is not Ready and says what to send instead', (outcome, run, hint) => {
      const status = saveStatus(run().state, 's1', at(4));
      expect(status?.outcome).toBe(outcome);
      const ready = status?.conditions.find((c) => c.type === 'Ready');
      expect(ready).toMatchObject({ status: 'False', reason: outcome });
      expect(ready?.message).toMatch(/^nothing was committed: /);
      expect(ready?.message).toContain(hint);
      expect(status?.conditions.find((c) => c.type === 'Stalled')?.status).toBe('True');
    });
  });

  describe('outcomes', () => {
    it("resolves with the save's own write's commit, not the branch tip", () => {
      const branch = new Branch()
        .run(admit(0, { path: 'earlier.yaml', author: bob }), tick(5))
        .answer(6, 'transient');
      branch.run(registerSave(7, 's1', { maxDurationMs: 0 }), admit(7, { path: 'mine.yaml' }));
      branch.run(admit(8, { path: 'other.yaml', author: bob }), tick(13), tick(16));
      const ownWrite = pendingWrites(branch.state).find((write) => write.saveIds.includes('s1'))!;
      expect(pendingWrites(branch.state).at(-1)?.id).not.toBe(ownWrite.id);
      branch.answer(17);
      expect(branch.state.publication.lastPush?.commit).not.toBe(shaOf(ownWrite.id));
      expect(saveStatus(branch.state, 's1', at(17))).toMatchObject({
        outcome: 'Committed',
        commit: shaOf(ownWrite.id),
      });
    });

    it('a write with no diff resolves its save AlreadyPresent', () => {
      const branch = new Branch().run(registerSave(0, 's1'), admit(1), tick(3));
      const publish = owedEffects(branch.state)[0] as { attempt: string; writes: { id: string }[] };
      branch.run({
        type: 'RecordPublicationResult',
        at: at(4),
        attempt: publish.attempt,
        result: { outcome: 'published', commits: { [publish.writes[0]!.id]: null }, head: 'unchanged' },
      });
      expect(ofType(branch.last, 'SaveResolved')).toEqual([
        expect.objectContaining({ outcome: 'AlreadyPresent', reason: 'no-diff' }),
      ]);
    });

    it('CommitEmpty with no window decides an empty commit that publishes and resolves Committed', () => {
      const branch = new Branch().run(
        registerSave(0, 's1', { whenNothingToCommit: 'CommitEmpty', message: 'checkpoint' }),
        tick(2),
      );
      expect(ofType(branch.last, 'WriteDecided')[0]?.write).toMatchObject({
        kind: 'save-record',
        allowEmpty: true,
        message: 'checkpoint',
        changes: [],
        saveIds: ['s1'],
      });
      branch.answer(3);
      expect(saveStatus(branch.state, 's1', at(3))?.outcome).toBe('Committed');
    });

    it('CommitEmpty on an attached window asks for a commit even without a diff', () => {
      const branch = new Branch().run(
        registerSave(0, 's1', { whenNothingToCommit: 'CommitEmpty' }),
        admit(1),
        tick(3),
      );
      expect(ofType(branch.history, 'WriteDecided')[0]?.write.allowEmpty).toBe(true);
    });

    it('a refused write fails its save with the cause, and the other writes still publish', () => {
      const branch = new Branch()
        .run(admit(0, { path: 'earlier.yaml', author: bob }), tick(5))
        .answer(6, 'transient');
      branch.run(registerSave(7, 's1', { maxDurationMs: 0 }), admit(7, { path: 'bad.yaml' }), tick(16));
      const bad = pendingWrites(branch.state).find((write) => write.saveIds.includes('s1'))!;
      const publish = owedEffects(branch.state)[0] as { attempt: string; writes: unknown[] };
      expect(publish.writes).toHaveLength(2);
      branch.run({
        type: 'RecordPublicationResult',
        at: at(17),
        attempt: publish.attempt,
        result: {
          outcome: 'writeRefused',
          writeId: bad.id,
          cause: { message: 'path escapes the target folder' },
        },
      });
      expect(ofType(branch.last, 'SaveResolved')).toEqual([
        expect.objectContaining({ saveId: 's1', outcome: 'Failed', cause: 'path escapes the target folder' }),
      ]);
      expect(ofType(branch.last, 'PublicationPlanned')).toEqual([
        expect.objectContaining({ writes: [pendingWrites(branch.state)[0]!.id] }),
      ]);
      expect(pendingWrites(branch.state)).toHaveLength(1);
    });
  });

  describe('withdrawal', () => {
    it('withdraws a waiting save', () => {
      spec
        .given(history(registerSave(0, 's1')))
        .when(withdraw(1, 's1'))
        .thenContains({
          type: 'SaveResolved',
          saveId: 's1',
          outcome: 'Withdrawn',
          reason: 'withdrawn-while-waiting',
        });
    });

    it('an unknown id leaves a tombstone that stops a late registration', () => {
      const given = history(withdraw(0, 'ghost'));
      spec.given(given).when(registerSave(1, 'ghost')).thenNothingHappened();
      expect(saveStatus(given.reduce(evolve, initialState()), 'ghost', at(1))?.outcome).toBe('Withdrawn');
    });

    it('ignores a withdrawal of an attached save and answers held', () => {
      spec
        .given(history(registerSave(0, 's1'), admit(1)))
        .when(withdraw(1.5, 's1'))
        .then([{ type: 'WithdrawIgnored', at: at(1.5), saveId: 's1', held: 'CollectingWindow' }]);
    });

    it('ignores a withdrawal of a resolved save: its outcome stays', () => {
      spec
        .given(history(registerSave(0, 's1'), tick(2)))
        .when(withdraw(3, 's1'))
        .thenNothingHappened();
    });
  });

  describe('receipts and projection', () => {
    const request = { namespace: 'team-a', name: 'release', uid: 'uid-1' };

    it('owes the projection of a resolved outcome until it is recorded, then keeps the receipt 15 minutes', () => {
      const branch = new Branch().run(registerSave(0, 's1', { request }), tick(2));
      expect(owedEffects(branch.state)).toEqual([
        expect.objectContaining({
          type: 'project',
          saveId: 's1',
          request,
          status: expect.objectContaining({ outcome: 'NoWindow' }),
        }),
      ]);
      branch.run(tick(3600));
      expect(saveStatus(branch.state, 's1', at(3600))).toBeDefined();
      branch.run({ type: 'RecordProjection', at: at(3601), saveId: 's1' });
      expect(owedEffects(branch.state)).toEqual([]);
      spec
        .given(branch.history)
        .when({ type: 'RecordProjection', at: at(3602), saveId: 's1' })
        .thenNothingHappened();
      spec
        .given(branch.history)
        .when(tick(3601 + 899))
        .thenNothingHappened();
      branch.run(tick(3601 + 900));
      expect(ofType(branch.last, 'ReceiptsForgotten')).toEqual([
        expect.objectContaining({ saveIds: ['s1'] }),
      ]);
      expect(saveStatus(branch.state, 's1', at(4600))).toBeUndefined();
    });
  });
});
