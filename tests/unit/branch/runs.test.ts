import { readStoredState } from '../../../shared/app/entity/stored-state';
import { type BranchCommand, pendingWrites, usedBudgetBytes } from '../../../shared/branch';
import { admit, alice, at, Branch, ofType } from './scenario';

function admitRun(seconds: number, first: number, n: number, bytes: number): BranchCommand {
  return {
    type: 'AdmitRun',
    at: at(seconds),
    target: 'prod',
    author: alice,
    attribution: 'audit',
    run: { ref: 'sha256:batch', first, n, bytes },
  };
}

describe('a run of changes kept beside the state', () => {
  it('counts each of its changes toward the window’s limit, split where the window is full', () => {
    const branch = new Branch().run(
      { type: 'ConfigureBranch', at: at(0), limits: { windowChanges: 3 } },
      admitRun(0, 0, 2, 20),
      admitRun(1, 0, 5, 50),
      { type: 'Tick', at: at(600) },
    );
    const writes = pendingWrites(branch.state);
    expect(writes.map((write) => write.runs?.map((run) => [run.first, run.n, run.bytes]))).toEqual([
      [
        [0, 2, 20],
        [0, 1, 50],
      ],
      [[1, 3, 0]],
      [[4, 1, 0]],
    ]);
    expect(ofType(branch.history, 'WindowClosed').map((fact) => fact.reason)).toEqual([
      'item-limit',
      'item-limit',
      'idle-timeout',
    ]);
    // the budget charges every change of the runs and their bytes once
    expect(branch.state.pendingItems).toBe(7);
    expect(branch.state.pendingBytes).toBe(70);
    expect(usedBudgetBytes(branch.state)).toBe(70 + 7 * branch.state.limits.itemOverheadBytes);
    // its template message is the publication's to take, from the changes it reads
    expect(writes.map((write) => write.message)).toEqual(['', '', '']);
  });

  it('publishes inline changes that follow runs in a window of their own, after them', () => {
    const branch = new Branch().run(admitRun(0, 0, 2, 20), admit(1, { path: 'prod/a.yaml' }), {
      type: 'Tick',
      at: at(600),
    });
    expect(
      pendingWrites(branch.state).map((write) => [write.runs?.length ?? 0, write.changes?.length ?? 0]),
    ).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(ofType(branch.history, 'WindowClosed')[0]?.reason).toBe('after-runs');
  });

  it('is stored and read back as it was decided (branch state version 4)', () => {
    const branch = new Branch().run(admitRun(0, 7, 400, 4000), { type: 'Tick', at: at(600) });
    const reread = readStoredState(JSON.parse(JSON.stringify({ branch: branch.state, snapshots: {} })));
    expect(reread.ok && pendingWrites(reread.state.branch)).toEqual(pendingWrites(branch.state));
    expect(branch.state.pending[0]?.runs).toEqual([['sha256:batch', 7, 400, Date.parse(at(0)), 4000]]);
    expect(branch.state.pending[0]?.ch).toBeUndefined();
  });
});
