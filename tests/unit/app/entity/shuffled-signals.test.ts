import fc from 'fast-check';
import {
  type BranchEntityState,
  publicationInFlight,
  runBranchOperation,
} from '../../../../shared/app/entity/branch-operations';

const START = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(START + ms).toISOString();
const PATHS = ['a', 'b', 'c', 'd'].map((name) => `clusters/prod/ns/_core/configmaps/${name}.yaml`);
const AUTHORS = [
  { name: 'alice', username: 'alice' },
  { name: 'bob', username: 'bob' },
];

interface Signal {
  requestId: string;
  commands: unknown[];
}

const changeArb = fc.record({
  path: fc.constantFrom(...PATHS),
  operation: fc.constantFrom<'upsert' | 'delete'>('upsert', 'delete'),
  withVersion: fc.boolean(),
});
interface SignalSpec {
  author: number;
  changes: { path: string; operation: 'upsert' | 'delete'; withVersion: boolean }[];
}
const signalArb: fc.Arbitrary<SignalSpec> = fc.record({
  author: fc.nat(AUTHORS.length - 1),
  changes: fc.array(changeArb, { minLength: 1, maxLength: 3 }),
});

/** Client signals as the HTTP layer sends them: one a second, resourceVersions rising with time. */
function signalsOf(specs: readonly SignalSpec[]): Signal[] {
  return specs.map((spec, index) => ({
    requestId: `request-${String(index).padStart(8, '0')}`,
    commands: [
      { type: 'ChangeSettings', at: at(index * 1000), target: 'prod', path: 'clusters/prod' },
      {
        type: 'AdmitChanges',
        at: at(index * 1000),
        target: 'prod',
        author: AUTHORS[spec.author],
        attribution: 'audit',
        changes: spec.changes.map((change, n) => ({
          path: change.path,
          operation: change.operation,
          bytes: change.operation === 'delete' ? 0 : 10,
          ...(change.operation === 'delete' ? {} : { payloadRef: `ref-${index}-${n}` }),
          ...(change.withVersion ? { resourceVersion: String(1000 + index * 10 + n) } : {}),
        })),
      },
    ],
  }));
}

/** The files the branch publishes after `deliveries`, folding every published write in order. */
function publishedFiles(deliveries: readonly Signal[]): Map<string, string> {
  let state: unknown;
  for (const signal of deliveries) {
    const result = runBranchOperation(state, 'apply', signal);
    expect(result.answer).toEqual({ ok: true });
    state = result.state;
  }
  const files = new Map<string, string>();
  const entity = () => state as BranchEntityState;
  for (let step = 0; step < 100 && (entity().branch.pending.length > 0 || entity().branch.window); step++) {
    const now = 3_600_000 + step * 61_000;
    state = runBranchOperation(state, 'plan', { at: at(now) }).state;
    const attempt = entity().branch.publication.inFlight?.attempt;
    const inFlight = attempt ? publicationInFlight(entity(), attempt) : undefined;
    if (!attempt || !inFlight) continue;
    for (const write of inFlight.effect.writes)
      for (const change of write.changes ?? [])
        if (change.operation === 'delete') files.delete(change.path);
        else files.set(change.path, change.payloadRef ?? '');
    const commits = Object.fromEntries(inFlight.effect.writes.map((write) => [write.id, 'f'.repeat(40)]));
    state = runBranchOperation(state, 'apply', {
      commands: [
        {
          type: 'RecordPublicationResult',
          at: at(now + 1),
          attempt,
          result: { outcome: 'published', commits, head: 'f'.repeat(40) },
        },
      ],
    }).state;
  }
  expect(entity().branch.pending).toEqual([]);
  return files;
}

/**
 * Azure Storage's delivery of client signals, as the embedded host's faithful mode models it: each
 * signal up to `window` places late, some twice.
 */
const deliveryArb = (count: number, window: number) =>
  fc.record({
    delays: fc.array(fc.nat(window), { minLength: count, maxLength: count }),
    duplicates: fc.array(fc.record({ index: fc.nat(Math.max(0, count - 1)), delay: fc.nat(window) }), {
      maxLength: 4,
    }),
  });

describe('client signals shuffled within a window and duplicated', () => {
  it('publish the same files as in-order, once-only delivery', () => {
    fc.assert(
      fc.property(
        fc
          .array(signalArb, { minLength: 1, maxLength: 25 })
          .chain((specs) => fc.tuple(fc.constant(specs), deliveryArb(specs.length, 4))),
        ([specs, { delays, duplicates }]) => {
          const signals = signalsOf(specs);
          const keyed = signals.map((signal, index) => ({ key: index + (delays[index] ?? 0) + 0.5, signal }));
          for (const { index, delay } of duplicates)
            keyed.push({ key: index + delay + 0.75, signal: signals[index]! });
          const shuffled = keyed.sort((a, b) => a.key - b.key).map((entry) => entry.signal);
          expect(publishedFiles(shuffled)).toEqual(publishedFiles(signals));
        },
      ),
      { numRuns: Number(process.env.BRANCH_PROPERTY_RUNS ?? 200) },
    );
  });
});
