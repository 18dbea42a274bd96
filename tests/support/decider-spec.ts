/**
 * Given/when/then for deciders: `given` past facts (folded with the decider's own `evolve` from
 * `initialState()`), `when` a command, `then` the facts `decide` returns. Setup is always facts,
 * never a hand-built state.
 */
export interface Decider<Command, State, Fact> {
  decide(command: Command, state: State): Fact[];
  evolve(state: State, fact: Fact): State;
  initialState(): State;
}

/** A fact with any part left out, at any depth, for partial matching. */
export type DeepPartial<T> = T extends (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** What can be asserted once the command is known. */
export interface Then<State, Fact> {
  /** The decision is exactly these facts, in order. */
  then(expected: Fact[]): Fact[];
  /** Each expected (partial) fact appears in the decision, in this relative order. */
  thenContains(...expected: DeepPartial<Fact>[]): Fact[];
  /** The decision records no fact at all. */
  thenNothingHappened(): void;
  /** `decide` throws an instance of `errorClass`. */
  thenThrows(errorClass: new (...args: never[]) => Error): void;
  /** The facts of the decision and the state they fold into, for assertions about derived views. */
  outcome(): { facts: Fact[]; state: State };
}

/** Builds given/when/then specifications for one decider. */
export function deciderSpec<Command, State, Fact>(decider: Decider<Command, State, Fact>) {
  return {
    given(facts: Fact[]) {
      return {
        when(command: Command): Then<State, Fact> {
          const state = facts.reduce(decider.evolve, decider.initialState());
          const run = () => decider.decide(command, state);
          return {
            // biome-ignore lint/suspicious/noThenProperty: the given/when/then vocabulary of decider specs; never awaited
            then(expected) {
              const actual = run();
              expect(actual).toEqual(expected);
              return actual;
            },
            thenContains(...expected) {
              const actual = run();
              let from = 0;
              for (const partial of expected) {
                const index = actual.findIndex(
                  (fact, position) => position >= from && matches(fact as unknown, partial as unknown),
                );
                if (index < 0) {
                  throw new Error(
                    `expected a fact matching ${JSON.stringify(partial)} after position ${from} in ${JSON.stringify(actual, null, 1)}`,
                  );
                }
                from = index + 1;
              }
              return actual;
            },
            thenNothingHappened() {
              expect(run()).toEqual([]);
            },
            thenThrows(errorClass) {
              expect(run).toThrow(errorClass);
            },
            outcome() {
              const actual = run();
              return { facts: actual, state: actual.reduce(decider.evolve, state) };
            },
          };
        },
      };
    },
  };
}

function matches(actual: unknown, partial: unknown): boolean {
  if (partial === null || typeof partial !== 'object') return Object.is(actual, partial);
  if (actual === null || typeof actual !== 'object') return false;
  if (Array.isArray(partial)) {
    return (
      Array.isArray(actual) &&
      actual.length === partial.length &&
      partial.every((item, i) => matches(actual[i], item))
    );
  }
  return Object.entries(partial).every(([key, value]) =>
    matches((actual as Record<string, unknown>)[key], value),
  );
}
