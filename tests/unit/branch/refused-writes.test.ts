/**
 * A write that can never be published (here: an author Git refuses) is set aside as refused, and
 * every other write is still published, in the order it was decided: no poison write stalls a branch.
 */
import fc from 'fast-check';
import {
  type Author,
  type BranchCommand,
  type BranchFact,
  type BranchState,
  branchCommandSchema,
  handle,
  initialState,
  nextDeadline,
  owedEffects,
  type PendingWrite,
  type PublicationResult,
  pendingWrites,
  refusedWrites,
} from '../../../shared/branch';
import { alice, bob } from './scenario';

const START_MS = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(START_MS + ms).toISOString();
const jane: Author = { name: 'Jane <jane@example.com>', username: 'Jane <jane@example.com>' };
const TARGETS = ['prod', 'staging'] as const;

/** What the Git layer does: the first write it cannot publish is refused, else every write lands. */
const unpublishable = (write: PendingWrite) => /[<>\n]/.test(write.author.name);

const action = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('admit' as const),
      dt: fc.integer({ min: 0, max: 5000 }),
      author: fc.constantFrom(alice, bob, jane),
      target: fc.constantFrom(...TARGETS),
      path: fc.constantFrom('a.yaml', 'b.yaml', 'c.yaml'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), dt: fc.integer({ min: 0, max: 60_000 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('git' as const),
      dt: fc.integer({ min: 0, max: 2000 }),
      down: fc.boolean(),
    }),
  },
);

interface Run {
  state: BranchState;
  history: BranchFact[];
  now: number;
  /** Write ids in the order they landed on the simulated remote. */
  landed: string[];
}

function step(run: Run, command: BranchCommand): void {
  const { facts, state } = handle(run.state, branchCommandSchema.parse(JSON.parse(JSON.stringify(command))));
  run.state = state;
  run.history.push(...facts);
}

/** Answers the owed publication, if any, as the Git layer would (or as an outage). */
function answerPublication(run: Run, down: boolean): boolean {
  const publish = owedEffects(run.state).find((effect) => effect.type === 'publish');
  if (publish?.type !== 'publish') return false;
  const at = iso(run.now);
  const poison = publish.writes.find(unpublishable);
  let result: PublicationResult;
  if (down) result = { outcome: 'transient', cause: { message: 'git is down' } };
  else if (poison)
    result = {
      outcome: 'writeRefused',
      writeId: poison.id,
      cause: { message: 'author: name contains < or >' },
    };
  else {
    run.landed.push(...publish.writes.map((write) => write.id));
    const commits = Object.fromEntries(publish.writes.map((write) => [write.id, `sha-${write.id}`]));
    result = { outcome: 'published', commits, head: `head-${run.now}` };
  }
  step(run, { type: 'RecordPublicationResult', at, attempt: publish.attempt, result });
  return true;
}

type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

function play(actions: Action[]): Run {
  const run: Run = { state: initialState(), history: [], now: 0, landed: [] };
  for (const act of actions) {
    run.now += act.dt;
    const at = iso(run.now);
    if (act.kind === 'admit')
      step(run, {
        type: 'AdmitChanges',
        at,
        target: act.target,
        author: act.author,
        attribution: 'audit',
        changes: [{ path: act.path, operation: 'upsert', payloadRef: `sha256:${act.path}`, bytes: 10 }],
      });
    else if (act.kind === 'tick') step(run, { type: 'Tick', at });
    else if (!answerPublication(run, act.down)) step(run, { type: 'Tick', at });
  }
  // Git comes back: run to quiet
  for (let round = 0; round < 500; round++) {
    if (answerPublication(run, false)) {
      run.now += 1000;
      continue;
    }
    const next = nextDeadline(run.state);
    if (!next || (next.purpose === 'receipt-expiry' && !run.state.window && run.state.pending.length === 0))
      return run;
    run.now = Math.max(run.now + 1, Date.parse(next.dueAt) - START_MS);
    step(run, { type: 'Tick', at: iso(run.now) });
  }
  throw new Error('the branch did not become quiet');
}

describe('writes that can never be published', () => {
  it('are set aside, shown in the status, and every publishable write is published in decision order', () => {
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 40 }), (actions) => {
        const run = play(actions);
        const decided = run.history.flatMap((fact) => (fact.type === 'WriteDecided' ? [fact.write] : []));
        const refused = run.history.flatMap((fact) => (fact.type === 'WriteRefused' ? [fact.writeId] : []));
        expect(run.landed).toEqual(decided.filter((write) => !unpublishable(write)).map((write) => write.id));
        expect(refused).toEqual(decided.filter(unpublishable).map((write) => write.id));
        expect(pendingWrites(run.state)).toEqual([]);
        expect(run.state.publication.intakePaused).toBe(false);
        for (const target of TARGETS) {
          const poisoned = decided.filter((write) => write.target === target && unpublishable(write));
          const view = refusedWrites(run.state, target);
          expect(view.count).toBe(poisoned.length);
          const shown = view.recent.map((r) => r.writeId);
          expect(poisoned.map((write) => write.id).slice(-shown.length)).toEqual(shown);
          if (poisoned.length > 0) expect(shown.at(-1)).toBe(poisoned.at(-1)?.id);
          expect(view.condition?.status).toBe(poisoned.length > 0 ? 'True' : undefined);
        }
      }),
      { numRuns: Number(process.env.BRANCH_PROPERTY_RUNS ?? 150) },
    );
  });

  it('reads a state stored before refusals were kept', () => {
    const { refused: _none, ...old } = initialState();
    expect(refusedWrites(old as BranchState, 'prod')).toEqual({ count: 0, recent: [] });
  });
});
