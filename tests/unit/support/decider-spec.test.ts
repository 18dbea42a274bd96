import { deciderSpec } from '../../support/decider-spec';

// A tiny counter decider that exercises every branch of the helper.
type Command = { type: 'Add'; amount: number } | { type: 'Reset' };
type Fact = { type: 'Added'; amount: number; total: number } | { type: 'WasReset' };
class NegativeAmount extends Error {}

const counter = {
  initialState: () => ({ total: 0 }),
  evolve: (_state: { total: number }, fact: Fact) =>
    fact.type === 'Added' ? { total: fact.total } : { total: 0 },
  decide(command: Command, state: { total: number }): Fact[] {
    if (command.type === 'Reset') return state.total === 0 ? [] : [{ type: 'WasReset' }];
    if (command.amount < 0) throw new NegativeAmount('negative');
    return [{ type: 'Added', amount: command.amount, total: state.total + command.amount }];
  },
};
const spec = deciderSpec(counter);

describe('the decider specification helper', () => {
  it('folds the given facts before deciding, so then() sees the accumulated state', () => {
    spec
      .given([{ type: 'Added', amount: 2, total: 2 }])
      .when({ type: 'Add', amount: 3 })
      .then([{ type: 'Added', amount: 3, total: 5 }]);
  });

  it('fails then() when the facts differ', () => {
    expect(() =>
      spec
        .given([])
        .when({ type: 'Add', amount: 1 })
        .then([{ type: 'Added', amount: 1, total: 2 }]),
    ).toThrow();
  });

  it('thenContains() matches partial facts in order and fails when one is missing', () => {
    spec.given([]).when({ type: 'Add', amount: 4 }).thenContains({ type: 'Added', total: 4 });
    expect(() => spec.given([]).when({ type: 'Add', amount: 4 }).thenContains({ type: 'WasReset' })).toThrow(
      /expected a fact matching/,
    );
  });

  it('thenNothingHappened() passes on no facts and fails on some', () => {
    spec.given([]).when({ type: 'Reset' }).thenNothingHappened();
    expect(() =>
      spec
        .given([{ type: 'Added', amount: 1, total: 1 }])
        .when({ type: 'Reset' })
        .thenNothingHappened(),
    ).toThrow();
  });

  it('thenThrows() checks the error class and fails when nothing is thrown', () => {
    spec.given([]).when({ type: 'Add', amount: -1 }).thenThrows(NegativeAmount);
    expect(() => spec.given([]).when({ type: 'Add', amount: 1 }).thenThrows(NegativeAmount)).toThrow();
  });

  it('outcome() returns the facts with the state they fold into', () => {
    const { facts, state } = spec
      .given([{ type: 'Added', amount: 1, total: 1 }])
      .when({ type: 'Add', amount: 1 })
      .outcome();
    expect(facts).toHaveLength(1);
    expect(state).toEqual({ total: 2 });
  });
});
