import { decide, evolve, initialState, owedEffects } from '../../../shared/branch';
import { deciderSpec } from '../../support/decider-spec';
import { admit, alice, at, Branch, bob, history, ofType, snapshot, tick } from './scenario';

const spec = deciderSpec({ decide, evolve, initialState });

describe('commit windows', () => {
  describe('with no open window', () => {
    it('opens a window for the author, attribution and target with the default timing snapshotted', () => {
      spec
        .given([])
        .when(admit(0))
        .thenContains(
          {
            type: 'WindowOpened',
            windowId: 'window-1',
            target: 'prod',
            author: alice,
            attribution: 'audit',
            idleTimeoutMs: 5000,
            maxDurationMs: 60_000,
            maxDueAt: at(60),
          },
          { type: 'ChangesAdmitted', windowId: 'window-1' },
          { type: 'DeadlineScheduled', purpose: 'window-close', owner: 'window-1', dueAt: at(5) },
        );
    });
  });

  describe('with an open window', () => {
    const open = history(admit(0, { path: 'a.yaml' }));

    it('closes it first when the author changes', () => {
      spec
        .given(open)
        .when(admit(1, { author: bob }))
        .thenContains(
          { type: 'WindowClosed', windowId: 'window-1', reason: 'author-or-target-change' },
          { type: 'WriteDecided', write: { author: alice } },
          { type: 'WindowOpened', windowId: 'window-2', author: bob },
        );
    });

    it('closes it first when the target changes', () => {
      spec
        .given(open)
        .when(admit(1, { target: 'staging' }))
        .thenContains(
          { type: 'WindowClosed', reason: 'author-or-target-change' },
          { type: 'WindowOpened', target: 'staging' },
        );
    });

    it('closes it first when the attribution outcome changes', () => {
      spec
        .given(open)
        .when(admit(1, { attribution: 'unresolved' }))
        .thenContains({ type: 'WindowClosed', reason: 'author-or-target-change' });
    });

    it('keeps the last write per path, in first-seen order', () => {
      const branch = new Branch().run(
        admit(0, { path: 'a.yaml', bytes: 10 }),
        admit(1, { path: 'b.yaml', bytes: 20 }),
        admit(2, { path: 'a.yaml', bytes: 30, operation: 'delete' }),
        tick(7),
      );
      const write = ofType(branch.history, 'WriteDecided')[0]!.write;
      expect(write.changes).toEqual([
        { path: 'a.yaml', operation: 'delete', payloadRef: 'sha256:a.yaml', bytes: 30 },
        { path: 'b.yaml', operation: 'upsert', payloadRef: 'sha256:b.yaml', bytes: 20 },
      ]);
      expect(write).toMatchObject({ bytes: 50, items: 2, message: 'alice on prod: 2 resource(s)' });
    });

    it('keeps the newer resourceVersion of an object even when it arrived first', () => {
      const given = history(admit(0, { path: 'a.yaml', resourceVersion: '120', bytes: 10 }));
      spec
        .given(given)
        .when(admit(1, { path: 'a.yaml', resourceVersion: '99', bytes: 99 }))
        .then([
          {
            type: 'ChangeSkipped',
            at: at(1),
            windowId: 'window-1',
            path: 'a.yaml',
            resourceVersion: '99',
            keptResourceVersion: '120',
            reason: 'older-resource-version',
          },
        ]);
    });

    it('does not close on a tick before the idle timeout, and closes at it', () => {
      spec.given(open).when(tick(4.999)).thenNothingHappened();
      spec.given(open).when(tick(5)).thenContains({ type: 'WindowClosed', reason: 'idle-timeout' });
    });

    it('closes at the maximum duration even while edits keep arriving', () => {
      const branch = new Branch();
      for (let second = 0; second <= 58; second += 2) branch.run(admit(second, { path: `p${second}.yaml` }));
      spec
        .given(branch.history)
        .when(tick(60))
        .thenContains({ type: 'WindowClosed', reason: 'max-duration' });
    });
  });

  it('a maximum duration of zero makes a commit per change', () => {
    const branch = new Branch().run(
      {
        type: 'ChangeSettings',
        at: at(0),
        target: 'prod',
        window: { idleTimeoutMs: 5000, maxDurationMs: 0 },
      },
      admit(0, { path: 'a.yaml' }),
      admit(0, { path: 'b.yaml' }),
    );
    expect(ofType(branch.history, 'WindowClosed').map((fact) => fact.reason)).toEqual([
      'max-duration',
      'max-duration',
    ]);
    expect(branch.state.window).toBeNull();
  });

  it('an idle timeout of zero closes the window at the end of the decision that admitted', () => {
    const branch = new Branch().run(
      {
        type: 'ChangeSettings',
        at: at(0),
        target: 'prod',
        window: { idleTimeoutMs: 0, maxDurationMs: 60_000 },
      },
      admit(1, { path: 'a.yaml' }),
    );
    expect(ofType(branch.last, 'WindowClosed')).toEqual([
      expect.objectContaining({ reason: 'idle-timeout' }),
    ]);
  });

  it('the byte cap closes the window early, including the tripping change, counting pending writes', () => {
    const branch = new Branch().run(
      { type: 'ConfigureBranch', at: at(0), limits: { bufferBytes: 1000 } },
      admit(0, { path: 'a.yaml', bytes: 300 }),
      tick(5),
      admit(6, { path: 'b.yaml', bytes: 300 }),
    );
    expect(ofType(branch.last, 'WindowClosed')).toEqual([]);
    branch.run(admit(7, { path: 'c.yaml', bytes: 400 }));
    expect(ofType(branch.last, 'WindowClosed')).toEqual([
      expect.objectContaining({ reason: 'buffer-limit' }),
    ]);
    expect(ofType(branch.last, 'WriteDecided')[0]?.write.changes?.map((c) => c.path)).toEqual([
      'b.yaml',
      'c.yaml',
    ]);
  });

  describe('commit messages', () => {
    it('uses the event template for a single change', () => {
      const command = admit(0);
      if (command.type !== 'AdmitChanges') throw new Error('unreachable');
      const change = command.changes[0]!;
      const create = {
        ...command,
        changes: [
          {
            ...change,
            verb: 'create' as const,
            subject: { apiVersion: 'apps/v1', resource: 'deployments', name: 'web' },
          },
        ],
      };
      const branch = new Branch().run(create, tick(5));
      expect(ofType(branch.history, 'WriteDecided')[0]?.write.message).toBe(
        '[CREATE] apps/v1/deployments/web',
      );
      const del = {
        ...create,
        at: at(6),
        changes: [{ ...create.changes[0]!, operation: 'delete' as const }],
      };
      branch.run(del, tick(11));
      expect(ofType(branch.history, 'WriteDecided')[1]?.write.message).toBe(
        '[DELETE] apps/v1/deployments/web',
      );
    });

    it("names a namespaced object's namespace in the event template", () => {
      const command = admit(0);
      if (command.type !== 'AdmitChanges') throw new Error('unreachable');
      const namespaced = {
        ...command,
        changes: [
          {
            ...command.changes[0]!,
            subject: { apiVersion: 'v1', resource: 'configmaps', namespace: 'shop', name: 'web' },
          },
        ],
      };
      const branch = new Branch().run(namespaced, tick(5));
      expect(ofType(branch.history, 'WriteDecided')[0]?.write.message).toBe(
        '[UPDATE] v1/configmaps shop/web',
      );
    });

    it('uses the reconcile template for a snapshot, closing the open window first', () => {
      spec
        .given(history(admit(0)))
        .when(snapshot(1, '1331'))
        .thenContains(
          { type: 'WindowClosed', reason: 'resync-before-apply' },
          {
            type: 'WriteDecided',
            reason: 'snapshot',
            write: {
              kind: 'snapshot',
              message: 'reconciled deployments (last resourceVersion: 1331)',
              prune: 'OnEvent',
            },
          },
        );
    });
  });

  it("captures the target's folder and prune mode on the write", () => {
    const branch = new Branch().run(
      { type: 'ChangeSettings', at: at(0), target: 'prod', path: 'clusters/prod', prune: 'Never' },
      admit(0),
      tick(5),
    );
    expect(owedEffects(branch.state)[0]).toMatchObject({
      type: 'publish',
      writes: [{ targetPath: 'clusters/prod', prune: 'Never', target: 'prod' }],
    });
  });
});
