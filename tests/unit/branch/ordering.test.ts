import { type BranchCommand, handle, initialState, pendingWrites } from '../../../shared/branch';
import { admit, at, Branch, bob, ofType } from './scenario';

function changeOf(branch: Branch, path: string) {
  const writes = pendingWrites(branch.state);
  const window = branch.state.window;
  const inPending = writes.flatMap((write) => write.changes ?? []).filter((change) => change.path === path);
  return { inPending, windowOpen: window !== null };
}

describe('changes to one path are ordered, whatever order they arrive in', () => {
  it('skips an older resourceVersion that arrives after a newer one left the window for a pending write', () => {
    const branch = new Branch().run(
      admit(0, { path: 'a.yaml', resourceVersion: '12', bytes: 12 }),
      // bob's admit closes alice's window: the newer change is now a pending write
      admit(1, { author: bob, path: 'b.yaml' }),
      admit(2, { path: 'a.yaml', resourceVersion: '9', bytes: 9 }),
    );
    const skipped = ofType(branch.history, 'ChangeSkipped');
    expect(skipped).toEqual([
      expect.objectContaining({
        path: 'a.yaml',
        resourceVersion: '9',
        keptResourceVersion: '12',
        reason: 'older-resource-version',
      }),
    ]);
    expect(changeOf(branch, 'a.yaml').inPending.map((change) => change.bytes)).toEqual([12]);
  });

  it('orders by receipt time when a change carries no integer resourceVersion (a delete and an update)', () => {
    const newer = admit(5, { path: 'a.yaml', operation: 'delete', bytes: 0 });
    const older = admit(3, { path: 'a.yaml', bytes: 30 });
    const branch = new Branch().run(newer, admit(6, { author: bob, path: 'b.yaml' }), older);
    expect(ofType(branch.history, 'ChangeSkipped')).toEqual([
      expect.objectContaining({ path: 'a.yaml', reason: 'older-receipt' }),
    ]);
    expect(changeOf(branch, 'a.yaml').inPending.map((change) => change.operation)).toEqual(['delete']);
  });

  it('skips an older change in the open window by receipt time, and admits a newer one', () => {
    const branch = new Branch().run(
      admit(5, { path: 'a.yaml', bytes: 5 }),
      admit(4, { path: 'a.yaml', bytes: 4 }),
    );
    expect(ofType(branch.history, 'ChangeSkipped')).toHaveLength(1);
    branch.run(admit(6, { path: 'a.yaml', bytes: 6 }), { type: 'Tick', at: at(600) });
    expect(pendingWrites(branch.state).flatMap((write) => write.changes ?? [])).toEqual([
      expect.objectContaining({ path: 'a.yaml', bytes: 6 }),
    ]);
  });

  it('keeps the arrival order for a window stored before receipt times were kept', () => {
    let state = handle(initialState(), admit(5, { path: 'a.yaml', bytes: 5 })).state;
    // the shape stored before: six-field tuples, no receipt time
    const window = state.window!;
    state = {
      ...state,
      window: {
        ...window,
        buckets: window.buckets.map((group) =>
          group.map((bucket) => bucket.map((entry) => entry.slice(0, 6))),
        ),
      } as typeof window,
    };
    const next = handle(state, admit(4, { path: 'a.yaml', bytes: 4 }));
    expect(next.facts.filter((fact) => fact.type === 'ChangeSkipped')).toEqual([]);
    expect(next.state.window?.bytes).toBe(4);
  });
});

describe('the pending orders a late change is checked against', () => {
  it('answer each state for its own writes, also an older state asked after a newer one', () => {
    // alice's a.yaml at rv 12 becomes a pending write; bob's window makes one more; then a.yaml at rv 20.
    const older = new Branch().run(
      admit(0, { path: 'a.yaml', resourceVersion: '12' }),
      admit(1, { author: bob, path: 'b.yaml' }),
      admit(2, { path: 'c.yaml' }),
    ).state;
    const newer = handle(
      handle(older, admit(3, { path: 'a.yaml', resourceVersion: '20' })).state,
      admit(4, { author: bob, path: 'd.yaml' }),
    ).state;
    // The newer state holds rv 20 for a.yaml: a late rv 15 is skipped there...
    expect(
      ofType(handle(newer, admit(5, { path: 'a.yaml', resourceVersion: '15' })).facts, 'ChangeSkipped'),
    ).toEqual([expect.objectContaining({ keptResourceVersion: '20' })]);
    // ...while the older state, asked afterwards, holds only rv 12: rv 15 is newer there.
    expect(
      ofType(handle(older, admit(5, { path: 'a.yaml', resourceVersion: '15' })).facts, 'ChangeSkipped'),
    ).toEqual([]);
  });
});

describe('a window holds at most `windowChanges` changes', () => {
  function deletes(count: number, seconds = 0, first = 0): BranchCommand {
    return {
      type: 'AdmitChanges',
      at: at(seconds),
      target: 'prod',
      author: bob,
      attribution: 'audit',
      changes: Array.from({ length: count }, (_, n) => ({
        path: `d/${first + n}.yaml`,
        operation: 'delete' as const,
        bytes: 0,
      })),
    };
  }

  it('closes at 2,000 changes by default, even in one command, and keeps every change', () => {
    const branch = new Branch().run(deletes(5_000));
    const closed = ofType(branch.history, 'WindowClosed');
    expect(closed.map((fact) => fact.reason)).toEqual(['item-limit', 'item-limit']);
    const writes = pendingWrites(branch.state);
    expect(writes.map((write) => write.changes?.length)).toEqual([2_000, 2_000]);
    expect(branch.state.window?.paths).toBe(1_000);
  });

  it('follows a configured limit', () => {
    const branch = new Branch().run(
      { type: 'ConfigureBranch', at: at(0), limits: { windowChanges: 3 } },
      deletes(2),
      deletes(2, 1, 2),
    );
    expect(ofType(branch.history, 'WindowClosed').map((fact) => fact.reason)).toEqual(['item-limit']);
    expect(branch.state.window?.paths).toBe(1);
  });
});
