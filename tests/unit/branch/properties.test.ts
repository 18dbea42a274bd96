/**
 * Properties over random command sequences (fast-check): replay, JSON, no lost change, idempotent
 * duplicates, the budget invariant, and exactly one outcome per registered save.
 */
import fc from 'fast-check';
import {
  type BranchCommand,
  type BranchFact,
  type BranchState,
  branchCommandSchema,
  evolve,
  handle,
  initialState,
  nextDeadline,
  owedEffects,
  pendingWrites,
  usedBudgetBytes,
} from '../../../shared/branch';
import { alice, bob } from './scenario';

const START_MS = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(START_MS + ms).toISOString();

const dt = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 4000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 4000, max: 30_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 30_000, max: 1_200_000 }) },
);
const saveId = fc.constantFrom('s1', 's2', 's3', 's4', 'ghost');
const path = fc.constantFrom('a.yaml', 'b.yaml', 'c.yaml', 'd.yaml', 'e.yaml');
const target = fc.constantFrom('prod', 'staging');

const action = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('admit' as const),
      dt,
      author: fc.constantFrom(alice, bob),
      attribution: fc.constantFrom('audit' as const, 'unresolved' as const),
      target,
      paths: fc.array(
        fc.record({
          path,
          bytes: fc.integer({ min: 0, max: 3000 }),
          rv: fc.option(fc.integer({ min: 1, max: 40 })),
        }),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
      op: fc.constantFrom('upsert' as const, 'delete' as const),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('save' as const),
      dt,
      id: saveId,
      author: fc.constantFrom(alice, bob),
      target,
      attach: fc.constantFrom('CurrentOrNext' as const, 'Next' as const),
      attachTimeoutMs: fc.constantFrom(0, 2000, 10_000),
      maxDurationMs: fc.constantFrom(0, 2000, 8000),
      idleTimeoutMs: fc.option(fc.constantFrom(0, 1000)),
      empty: fc.boolean(),
      request: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), dt, id: saveId }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('snapshot' as const),
      dt,
      target,
      resource: fc.constantFrom('deployments', 'configmaps'),
      bytes: fc.integer({ min: 0, max: 5000 }),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('tick' as const), dt }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      dt,
      outcome: fc.constantFrom(
        'published',
        'partial',
        'no-diff',
        'settled',
        'transient',
        'parentMissing',
        'rejected',
        'remoteMoved',
        'writeRefused',
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('probe' as const), dt, found: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refresh' as const), dt }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('observe' as const), dt }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('project' as const), dt, id: saveId }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('settings' as const),
      dt,
      target,
      prune: fc.option(fc.constantFrom('Never' as const, 'OnEvent' as const, 'Always' as const), {
        nil: undefined,
      }),
      window: fc.option(
        fc.record({
          idleTimeoutMs: fc.constantFrom(0, 1000, 5000),
          maxDurationMs: fc.constantFrom(0, 3000, 60_000),
        }),
        { nil: undefined },
      ),
      parentBranch: fc.option(fc.constantFrom('main', 'release'), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('suspend' as const),
      dt,
      target,
      by: fc.constantFrom('operator' as const, 'configuration' as const),
      on: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('limits' as const),
      dt,
      bufferBytes: fc.constantFrom(4000, 20_000, 8 * 1024 * 1024),
    }),
  },
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

/** Turns an action into a command against the current state (results need the attempt in flight). */
function commandFor(act: Action, state: BranchState, now: number): BranchCommand | undefined {
  const at = iso(now);
  switch (act.kind) {
    case 'admit':
      return {
        type: 'AdmitChanges',
        at,
        target: act.target,
        author: act.author,
        attribution: act.attribution,
        changes: act.paths.map((p) => ({
          path: p.path,
          operation: act.op,
          payloadRef: `sha256:${p.path}:${p.bytes}`,
          bytes: p.bytes,
          ...(p.rv !== null ? { resourceVersion: String(p.rv) } : {}),
        })),
      };
    case 'save':
      return {
        type: 'RegisterSave',
        at,
        saveId: act.id,
        target: act.target,
        author: act.author,
        attach: act.attach,
        attachTimeoutMs: act.attachTimeoutMs,
        maxDurationMs: act.maxDurationMs,
        ...(act.idleTimeoutMs !== null ? { idleTimeoutMs: act.idleTimeoutMs } : {}),
        whenNothingToCommit: act.empty ? 'CommitEmpty' : 'Resolve',
        ...(act.request ? { request: { namespace: 'ns', name: act.id } } : {}),
      };
    case 'withdraw':
      return { type: 'WithdrawSave', at, saveId: act.id };
    case 'snapshot':
      return {
        type: 'ApplySnapshot',
        at,
        target: act.target,
        scope: { resource: act.resource },
        revision: String(now),
        payloadRef: `sha256:snap-${now}`,
        bytes: act.bytes,
      };
    case 'tick':
      return { type: 'Tick', at };
    case 'refresh':
      return { type: 'RefreshRemote', at };
    case 'answer': {
      const publish = owedEffects(state).find((effect) => effect.type === 'publish');
      if (publish?.type !== 'publish') return undefined;
      const commits: Record<string, string | null> = {};
      publish.writes.forEach((write, index) => {
        if (act.outcome === 'partial' && index > 0) return;
        commits[write.id] = act.outcome === 'no-diff' && index === 0 ? null : `sha-${write.id}`;
      });
      const head = `head-${now}`;
      const cause = { message: `${act.outcome} at ${now}` };
      const result =
        act.outcome === 'published' || act.outcome === 'partial' || act.outcome === 'no-diff'
          ? { outcome: 'published' as const, commits, head }
          : act.outcome === 'settled'
            ? { outcome: 'settled' as const, commits, head }
            : act.outcome === 'writeRefused'
              ? { outcome: 'writeRefused' as const, writeId: publish.writes[0]?.id ?? 'none', cause }
              : { outcome: act.outcome, cause };
      return { type: 'RecordPublicationResult', at, attempt: publish.attempt, result };
    }
    case 'probe': {
      const probe = state.publication.probe;
      return probe ? { type: 'RecordProbeResult', at, probe: probe.probe, found: act.found } : undefined;
    }
    case 'observe': {
      const observation = state.publication.observation;
      return observation
        ? { type: 'RecordObservation', at, observation, head: `observed-${now}` }
        : undefined;
    }
    case 'project':
      return { type: 'RecordProjection', at, saveId: act.id };
    case 'settings':
      return {
        type: 'ChangeSettings',
        at,
        target: act.target,
        ...(act.prune ? { prune: act.prune } : {}),
        ...(act.window ? { window: act.window } : {}),
        ...(act.parentBranch ? { parentBranch: act.parentBranch } : {}),
      };
    case 'limits':
      return { type: 'ConfigureBranch', at, limits: { bufferBytes: act.bufferBytes } };
    case 'suspend':
      if (act.by === 'configuration')
        return { type: 'ChangeSettings', at, target: act.target, suspend: act.on };
      return { type: act.on ? 'SuspendTarget' : 'ResumeTarget', at, target: act.target };
  }
}

const DUPLICABLE = new Set<BranchCommand['type']>([
  'RegisterSave',
  'RecordPublicationResult',
  'RecordProbeResult',
  'RecordObservation',
  'RecordProjection',
  'Tick',
  'WithdrawSave',
  'RefreshRemote',
]);

interface Run {
  state: BranchState;
  history: BranchFact[];
  now: number;
  admitted: Set<string>;
}

function step(
  run: Run,
  sent: BranchCommand,
  checks: (run: Run, command: BranchCommand) => void = () => {},
): void {
  // Commands reach the entity as JSON and are validated there; do the same here.
  const command = branchCommandSchema.parse(JSON.parse(JSON.stringify(sent)));
  const { facts, state } = handle(run.state, command);
  run.state = state;
  run.history.push(...facts);
  checks(run, command);
}

function play(actions: Action[], checks?: (run: Run, command: BranchCommand) => void): Run {
  const run: Run = { state: initialState(), history: [], now: 0, admitted: new Set() };
  for (const act of actions) {
    run.now += act.dt;
    const command = commandFor(act, run.state, run.now);
    if (!command) continue;
    if (command.type === 'AdmitChanges')
      for (const change of command.changes) run.admitted.add(`${command.target}/${change.path}`);
    step(run, command, checks);
  }
  return run;
}

/**
 * Lets the branch run to quiet: every suspension lifted, every owed effect answered successfully,
 * every deadline reached.
 */
function drain(run: Run): void {
  for (const target of Object.keys(run.state.suspended)) {
    step(run, { type: 'ResumeTarget', at: iso(run.now), target });
    step(run, { type: 'ChangeSettings', at: iso(run.now), target, suspend: false });
  }
  for (let round = 0; round < 200; round++) {
    const at = iso(run.now);
    const effects = owedEffects(run.state);
    const effect = effects[0];
    if (effect) {
      run.now += 1000;
      if (effect.type === 'publish') {
        const commits = Object.fromEntries(effect.writes.map((write) => [write.id, `sha-${write.id}`]));
        step(run, {
          type: 'RecordPublicationResult',
          at,
          attempt: effect.attempt,
          result: { outcome: 'published', commits, head: `head-${run.now}` },
        });
      } else if (effect.type === 'probe-parent') {
        step(run, { type: 'RecordProbeResult', at, probe: effect.probe, found: true });
      } else if (effect.type === 'observe-remote') {
        step(run, { type: 'RecordObservation', at, observation: effect.observation });
      } else if (effect.type === 'project') {
        step(run, { type: 'RecordProjection', at, saveId: effect.saveId });
      } else {
        // these runs push; a pull request is asked of no host
        throw new Error(`a pushing branch owed ${effect.type}`);
      }
      continue;
    }
    const next = nextDeadline(run.state);
    if (
      !next ||
      (next.purpose === 'receipt-expiry' && !run.state.window && pendingWrites(run.state).length === 0)
    )
      return;
    run.now = Math.max(run.now, Date.parse(next.dueAt) - START_MS);
    step(run, { type: 'Tick', at: iso(run.now) });
  }
  throw new Error('the branch did not become quiet');
}

const actions = fc.array(action, { minLength: 1, maxLength: 60 });
// BRANCH_PROPERTY_RUNS raises the count for a deeper local search; the suite default stays fast.
const RUNS = { numRuns: Number(process.env.BRANCH_PROPERTY_RUNS ?? 150) };

describe('branch properties over random command sequences', () => {
  it('replaying the facts rebuilds the same state, and state and facts survive a JSON round trip', () => {
    fc.assert(
      fc.property(actions, (acts) => {
        const run = play(acts);
        expect(run.history.reduce(evolve, initialState())).toEqual(run.state);
        expect(JSON.parse(JSON.stringify(run.state))).toStrictEqual(run.state);
        expect(JSON.parse(JSON.stringify(run.history))).toStrictEqual(run.history);
      }),
      RUNS,
    );
  });

  it('no admitted change is lost: it is in the window, a pending write, a published write, or refused by a fact', () => {
    fc.assert(
      fc.property(actions, (acts) => {
        const run = play(acts);
        // close any open window (timers are at most a minute) so every kept change is in a write
        run.now += 3_600_000;
        step(run, { type: 'Tick', at: iso(run.now) });
        expect(run.state.window).toBeNull();
        const writes = new Map<string, string[]>();
        const accounted = new Set<string>();
        for (const fact of run.history) {
          if (fact.type === 'WriteDecided') {
            writes.set(
              fact.write.id,
              (fact.write.changes ?? []).map((change) => `${fact.write.target}/${change.path}`),
            );
          }
          if (fact.type === 'PublicationConfirmed') {
            for (const id of Object.keys(fact.commits))
              for (const key of writes.get(id) ?? []) accounted.add(key);
          }
          if (fact.type === 'WriteRefused')
            for (const key of writes.get(fact.writeId) ?? []) accounted.add(key);
        }
        for (const write of pendingWrites(run.state))
          for (const change of write.changes ?? []) accounted.add(`${write.target}/${change.path}`);
        for (const key of run.admitted) expect(accounted).toContain(key);
      }),
      RUNS,
    );
  });

  it('duplicates change nothing: the same save id, the same result, a tick that fires twice', () => {
    fc.assert(
      fc.property(actions, (acts) => {
        play(acts, (run, command) => {
          if (!DUPLICABLE.has(command.type)) return;
          const { facts, state } = handle(run.state, command);
          expect(state).toEqual(run.state);
          if (command.type !== 'WithdrawSave') expect(facts).toEqual([]);
        });
      }),
      RUNS,
    );
  });

  it('the budget invariant holds after every decision: overfilled during a retry means paused, and only a retry pauses', () => {
    fc.assert(
      fc.property(actions, (acts) => {
        play(acts, (run) => {
          const { publication, limits } = run.state;
          if (publication.retry && usedBudgetBytes(run.state) > limits.bufferBytes)
            expect(publication.intakePaused).toBe(true);
          if (publication.intakePaused) expect(publication.retry).toBeDefined();
        });
      }),
      RUNS,
    );
  });

  it('leaves no deadline due at or before the time of the decision', () => {
    fc.assert(
      fc.property(actions, (acts) => {
        play(acts, (run, command) => {
          const next = nextDeadline(run.state);
          if (next) expect(Date.parse(next.dueAt)).toBeGreaterThan(Date.parse(command.at));
        });
      }),
      RUNS,
    );
  });

  it('every registered save ends in exactly one outcome, and the branch ends quiet', () => {
    fc.assert(
      fc.property(actions, (acts) => {
        const run = play(acts);
        drain(run);
        expect(pendingWrites(run.state)).toEqual([]);
        expect(run.state.window).toBeNull();
        expect(owedEffects(run.state)).toEqual([]);
        run.history.forEach((fact, index) => {
          if (fact.type !== 'SaveRegistered') return;
          const id = fact.save.id;
          // this registration's life ends when its receipt is forgotten or the id registers again
          const end = run.history.findIndex(
            (later, i) =>
              i > index &&
              ((later.type === 'SaveRegistered' && later.save.id === id) ||
                (later.type === 'ReceiptsForgotten' && later.saveIds.includes(id))),
          );
          const span = run.history.slice(index, end < 0 ? undefined : end);
          expect(span.filter((later) => later.type === 'SaveResolved' && later.saveId === id)).toHaveLength(
            1,
          );
        });
      }),
      RUNS,
    );
  });
});
