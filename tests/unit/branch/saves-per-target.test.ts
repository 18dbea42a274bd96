/**
 * Save ids are per target: two targets on one branch each have their own save of an id, and a
 * withdrawal or a read from one target never reaches the other's.
 */
import {
  type BranchCommand,
  type BranchState,
  initialState,
  saveStatus,
  withdrawAnswer,
} from '../../../shared/branch';
import { at, Branch, bob, registerSave } from './scenario';

const withdrawFrom = (seconds: number, target: string, saveId: string): BranchCommand => ({
  type: 'WithdrawSave',
  at: at(seconds),
  saveId,
  target,
});

describe('saves of two targets on one branch', () => {
  it('keep the same id apart: each target registers, reads and resolves its own', () => {
    const branch = new Branch().run(
      registerSave(0, 's1', { attachTimeoutMs: 60_000 }),
      registerSave(1, 's1', { target: 'staging', author: bob, attachTimeoutMs: 60_000 }),
    );
    expect(saveStatus(branch.state, 's1', at(2), 'prod')).toMatchObject({ id: 's1', target: 'prod' });
    expect(saveStatus(branch.state, 's1', at(2), 'staging')).toMatchObject({ id: 's1', target: 'staging' });
    expect(branch.state.openSaves).toBe(2);
  });

  it("never withdraws another target's save: the withdrawal is not found and the save keeps waiting", () => {
    const branch = new Branch().run(registerSave(0, 's1', { attachTimeoutMs: 60_000 }));
    branch.run(withdrawFrom(1, 'staging', 's1'));

    expect(branch.last.filter((fact) => fact.type === 'SaveResolved')).toEqual([]);
    expect(withdrawAnswer(branch.state, 's1', 'staging')).toEqual({ notFound: true });
    expect(saveStatus(branch.state, 's1', at(1), 'staging')).toBeUndefined();
    expect(saveStatus(branch.state, 's1', at(1), 'prod')?.phase).toBe('WaitingForWindow');
  });

  it('a withdrawal before registration blocks that id for its own target only', () => {
    const branch = new Branch().run(withdrawFrom(0, 'staging', 's9'));
    expect(withdrawAnswer(branch.state, 's9', 'staging')).toEqual({ outcome: 'Withdrawn' });
    branch.run(registerSave(1, 's9'), registerSave(2, 's9', { target: 'staging' }));

    expect(saveStatus(branch.state, 's9', at(2), 'prod')?.phase).toBe('WaitingForWindow');
    expect(saveStatus(branch.state, 's9', at(2), 'staging')?.outcome).toBe('Withdrawn');
  });

  it('reads a state stored before saves were per target: saves under their bare id, tombstones too', () => {
    const stored = JSON.parse(
      JSON.stringify(new Branch().run(registerSave(0, 'old', { attachTimeoutMs: 60_000 })).state),
    ) as BranchState;
    const old: BranchState = { ...stored, tombstones: { gone: at(0) } };
    expect(Object.keys(old.saves)).toEqual(['old']);

    const branch = new Branch();
    branch.state = old;
    expect(saveStatus(branch.state, 'old', at(1), 'prod')).toMatchObject({
      id: 'old',
      phase: 'WaitingForWindow',
    });
    expect(saveStatus(branch.state, 'old', at(1), 'staging')).toBeUndefined();
    expect(saveStatus(branch.state, 'gone', at(1), 'prod')?.outcome).toBe('Withdrawn');

    branch.run(registerSave(2, 'old', { target: 'staging', attachTimeoutMs: 60_000 }));
    expect(saveStatus(branch.state, 'old', at(2), 'staging')?.target).toBe('staging');
    branch.run(withdrawFrom(3, 'prod', 'old'));
    expect(saveStatus(branch.state, 'old', at(3), 'prod')?.outcome).toBe('Withdrawn');
    expect(saveStatus(branch.state, 'old', at(3), 'staging')?.phase).toBe('WaitingForWindow');
    expect(initialState().saves).toEqual({});
  });
});
