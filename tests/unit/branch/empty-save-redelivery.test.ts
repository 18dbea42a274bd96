// A save that commits empty keeps its receipt long enough that a redelivery answers the original commit.
import { owedEffects, pendingWrites, saveStatus } from '../../../shared/branch';
import { at, Branch, ofType, registerSave, shaOf, tick } from './scenario';

const DAY_S = 24 * 3600;

function committedEmptySave(): { branch: Branch; commit: string } {
  const branch = new Branch().run(registerSave(0, 'marker', { whenNothingToCommit: 'CommitEmpty' }), tick(2));
  const [write] = pendingWrites(branch.state);
  if (!write) throw new Error('the empty save decided no write');
  branch.answer(3);
  const commit = shaOf(write.id);
  expect(saveStatus(branch.state, 'marker', at(3))).toMatchObject({ outcome: 'Committed', commit });
  return { branch, commit };
}

describe('an empty save redelivered after the ordinary receipt retention', () => {
  it('answers the original commit and decides no second empty commit', () => {
    const { branch, commit } = committedEmptySave();
    branch.run(tick(3 + 3600));
    expect(branch.state.saves.marker).toBeDefined();

    branch.run(registerSave(3 + 3600, 'marker', { whenNothingToCommit: 'CommitEmpty' }), tick(3 + 3610));
    expect(ofType(branch.history, 'WriteDecided')).toHaveLength(1);
    expect(pendingWrites(branch.state)).toEqual([]);
    expect(owedEffects(branch.state)).toEqual([]);
    expect(saveStatus(branch.state, 'marker', at(3 + 3610))).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit,
    });
  });

  it('keeps that receipt seven days, then forgets it', () => {
    const { branch } = committedEmptySave();
    branch.run(tick(3 + 7 * DAY_S - 1));
    expect(saveStatus(branch.state, 'marker', at(3 + 7 * DAY_S - 1))).toBeDefined();
    branch.run(tick(3 + 7 * DAY_S));
    expect(ofType(branch.last, 'ReceiptsForgotten')).toEqual([
      expect.objectContaining({ saveIds: ['marker'] }),
    ]);
    expect(saveStatus(branch.state, 'marker', at(3 + 7 * DAY_S))).toBeUndefined();
  });

  it('keeps an ordinary save receipt its ordinary 15 minutes', () => {
    const branch = new Branch().run(registerSave(0, 'plain'), tick(2));
    expect(saveStatus(branch.state, 'plain', at(2))).toMatchObject({ outcome: 'NoWindow' });
    branch.run(tick(2 + 900));
    expect(saveStatus(branch.state, 'plain', at(2 + 900))).toBeUndefined();
  });
});
