/**
 * Pending writes are stored compactly (the state must fit the durable entity's 1 MB with the budget
 * full of one-change writes) yet reach the Git layer exactly as decided.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  type BranchCommand,
  type BranchFact,
  type BranchState,
  evolve,
  handle,
  initialState,
  owedEffects,
  type PendingWrite,
  pendingWrites,
} from '../../../../shared/branch';
import { admit, alice, at, Branch, bob, resultOf, snapshot } from '../scenario';

const ENTITY_LIMIT_BYTES = 1_000_000;

const instant = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const compactStampOf = (iso: string) => iso.replace(/[-:.]/g, '');
const author = fc.oneof(
  fc.constant(alice),
  fc.constant(bob),
  fc.record({ name: fc.string({ minLength: 1 }) }, { requiredKeys: ['name'] }),
);
const change = fc
  .record({
    path: fc.oneof(
      fc.string({ minLength: 1 }),
      // folders shared by successive changes, and paths that look like stored ones
      fc
        .tuple(
          fc.constantFrom('', '/', 'a/', 'a/b/', 'ns/configmaps/'),
          fc.constantFrom('', 'x', 'y.yaml', '/'),
        )
        .map(([folder, name]) => folder + name)
        .filter((path) => path !== ''),
    ),
    operation: fc.constantFrom(
      'upsert' as const,
      'delete' as const,
      // branch state version 4
      'delete-collection' as const,
      'delete-namespace' as const,
      'set-replicas' as const,
    ),
    payloadRef: fc.option(
      fc.oneof(
        fc.string({ minLength: 1 }),
        fc.stringMatching(/^sha256:[0-9a-f]{64}$/),
        fc.stringMatching(/^[=A-Za-z0-9_-]{1,44}$/),
        // items of stored request batches: few digests and indices, so runs of successive items occur
        fc
          .tuple(fc.constantFrom(digestOf('a'), digestOf('b')), fc.integer({ min: 0, max: 3 }))
          .map(([digest, index]) => `${digest}#${index}`),
        fc.stringMatching(/^sha256:[0-9a-f]{64}#[0-9]{1,11}$/),
        fc.constantFrom('+', `sha256:${'0'.repeat(64)}#-1`),
      ),
      { nil: undefined },
    ),
    bytes: fc.nat(),
  })
  .map(({ path, operation, payloadRef, bytes }) =>
    payloadRef === undefined ? { path, operation, bytes } : { path, operation, payloadRef, bytes },
  );

const TEMPLATE_VERBS = {
  upsert: 'UPDATE',
  delete: 'DELETE',
  'delete-namespace': 'DELETE',
  'delete-collection': 'DELETECOLLECTION',
  'set-replicas': 'SCALE',
} as const;

/** Any write a fact could carry, built in the key order the decider uses. */
const anyWrite: fc.Arbitrary<PendingWrite> = fc
  .record({
    decidedAt: fc.oneof(instant, fc.constant('2026-01-01T00:00:00Z')),
    counter: fc.integer({ min: 1, max: 1_000_000 }),
    foreignId: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
    kind: fc.constantFrom('window' as const, 'snapshot' as const, 'save-record' as const),
    target: fc.constantFrom('prod', 'staging'),
    targetPath: fc.constantFrom('.', 'clusters/prod'),
    author,
    attribution: fc.constantFrom('audit' as const, 'configured' as const, 'unresolved' as const),
    message: fc.option(fc.string(), { nil: undefined }),
    prune: fc.constantFrom('Never' as const, 'OnEvent' as const, 'Always' as const),
    allowEmpty: fc.boolean(),
    changes: fc.option(fc.array(change, { maxLength: 4 }), { nil: undefined }),
    snapshot: fc.option(
      fc.record(
        {
          scope: fc.record({ resource: fc.constant('deployments') }, { requiredKeys: [] }),
          revision: fc.string({ minLength: 1 }),
          payloadRef: fc.string({ minLength: 1 }),
          bytes: fc.nat(),
          objects: fc.nat(),
        },
        { requiredKeys: ['scope', 'revision', 'payloadRef', 'bytes'] },
      ),
      { nil: undefined },
    ),
    saveIds: fc.array(fc.constantFrom('s1', 's2'), { maxLength: 2 }),
    bytes: fc.option(fc.nat(), { nil: undefined }),
    items: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
  })
  .map((w) => {
    const changes = w.changes;
    const sole = changes?.length === 1 ? changes[0] : undefined;
    const template = sole
      ? `[${TEMPLATE_VERBS[sole.operation]}] ${sole.path}`
      : `${w.author.name} on ${w.target}: ${changes?.length ?? 0} resource(s)`;
    return {
      id: w.foreignId ?? `${compactStampOf(new Date(w.decidedAt).toISOString())}-${w.counter}`,
      kind: w.kind,
      target: w.target,
      targetPath: w.targetPath,
      author: w.author,
      attribution: w.attribution,
      message: w.message ?? template,
      decidedAt: w.decidedAt,
      prune: w.prune,
      allowEmpty: w.allowEmpty,
      ...(changes ? { changes } : {}),
      ...(w.snapshot ? { snapshot: w.snapshot } : {}),
      saveIds: w.saveIds,
      bytes: w.bytes ?? (changes ?? []).reduce((sum, c) => sum + c.bytes, w.snapshot?.bytes ?? 0),
      items: w.items ?? Math.max(1, changes?.length ?? 0),
    };
  });

function decided(state: BranchState, write: PendingWrite): BranchState {
  const fact: BranchFact = { type: 'WriteDecided', at: write.decidedAt, write, reason: 'window-closed' };
  return evolve(state, fact);
}

/** Fills the intake budget during an outage with one write per change, as the app admits them. */
function budgetFullOfOneChangeWrites(): { state: BranchState; changes: number } {
  const admitOf = (index: number, ms: number): BranchCommand => {
    const name = `web-${String(index).padStart(6, '0')}`;
    const path = `clusters/prod/shop/apps/deployments/${name}.yaml`;
    return {
      type: 'AdmitChanges',
      at: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
      target: 'prod',
      author: alice,
      attribution: 'audit',
      changes: [
        {
          path,
          operation: 'upsert',
          payloadRef: `sha256:${createHash('sha256').update(path).digest('hex')}`,
          bytes: 1024,
          subject: { apiVersion: 'apps/v1', resource: 'deployments', namespace: 'shop', name },
        },
      ],
    };
  };
  let state = handle(initialState(), {
    type: 'ChangeSettings',
    at: at(0),
    target: 'prod',
    path: 'clusters/prod',
    window: { idleTimeoutMs: 3_600_000, maxDurationMs: 0 },
  }).state;
  state = handle(state, admitOf(0, 0)).state;
  state = handle(state, resultOf(state, 0, 'transient')).state;
  let changes = 1;
  while (!state.publication.intakePaused) {
    state = handle(state, admitOf(changes, changes)).state;
    changes += 1;
  }
  return { state, changes };
}

describe('pending writes as the branch stores them', () => {
  it('given any decided write, when the Git layer asks for it, then it gets the write exactly as decided', () => {
    fc.assert(
      fc.property(fc.array(anyWrite, { minLength: 1, maxLength: 5 }), (writes) => {
        let state = initialState();
        for (const write of writes) state = decided(state, write);
        expect(JSON.stringify(pendingWrites(state))).toBe(JSON.stringify(writes));
        state = evolve(state, {
          type: 'PublicationPlanned',
          at: at(1),
          attempt: 'attempt-1',
          writes: writes.map((write) => write.id),
          reason: 'work-pending',
        });
        const publish = owedEffects(state).find((effect) => effect.type === 'publish');
        expect(publish?.type === 'publish' ? publish.writes : []).toEqual(writes);
      }),
      { numRuns: 300 },
    );
  });

  it('given a window of one request’s 400 changes, when it is stored, then each change’s payload reference takes one character', () => {
    const batch = digestOf('one request');
    const write = (refs: boolean): PendingWrite => ({
      id: 'w-400',
      kind: 'window',
      target: 'prod',
      targetPath: '.',
      author: alice,
      attribution: 'audit',
      message: 'alice on prod: 400 resource(s)',
      decidedAt: at(0),
      prune: 'OnEvent',
      allowEmpty: false,
      changes: Array.from({ length: 400 }, (_, i) => ({
        path: `bench/configmaps/cm-${i}.yaml`,
        operation: 'upsert' as const,
        ...(refs ? { payloadRef: `${batch}#${i}` } : {}),
        bytes: 622,
      })),
      saveIds: [],
      bytes: 400 * 622,
      items: 400,
    });

    const withRefs = decided(initialState(), write(true));
    const withoutRefs = decided(initialState(), write(false));

    const refBytes = JSON.stringify(withRefs).length - JSON.stringify(withoutRefs).length;
    expect(refBytes).toBeLessThan(400 * '"+",'.length + 60);
    expect(JSON.stringify(pendingWrites(withRefs))).toBe(JSON.stringify([write(true)]));
  });

  it('given a window of 400 changes in one folder, when it is stored, then each path is stored as its name', () => {
    const write = (folder: string): PendingWrite => ({
      id: 'w-400',
      kind: 'window',
      target: 'prod',
      targetPath: '.',
      author: alice,
      attribution: 'audit',
      message: 'alice on prod: 400 resource(s)',
      decidedAt: at(0),
      prune: 'OnEvent',
      allowEmpty: false,
      changes: Array.from({ length: 400 }, (_, i) => ({
        path: `${folder}cm-${i}.yaml`,
        operation: 'upsert' as const,
        bytes: 622,
      })),
      saveIds: [],
      bytes: 400 * 622,
      items: 400,
    });

    const inFolder = decided(initialState(), write('clusters/prod/bench/configmaps/'));
    const named = decided(initialState(), write(''));

    const folderBytes = JSON.stringify(inFolder).length - JSON.stringify(named).length;
    // the first path whole, each later one a `/` longer than its name
    expect(folderBytes).toBeLessThanOrEqual('clusters/prod/bench/configmaps/'.length + 399 * '/'.length);
    expect(JSON.stringify(pendingWrites(inFolder))).toBe(
      JSON.stringify([write('clusters/prod/bench/configmaps/')]),
    );
  });

  it('given an outage with a commit per change, when the budget fills with the app’s changes, then the state fits the 1 MB entity limit, also while they are in flight', () => {
    const full = budgetFullOfOneChangeWrites();
    expect(full.changes).toBeGreaterThan(4000);
    expect(Buffer.byteLength(JSON.stringify(full.state))).toBeLessThan(ENTITY_LIMIT_BYTES);
    const retrying = handle(full.state, { type: 'Tick', at: at(3600) }).state;
    const publish = owedEffects(retrying).find((effect) => effect.type === 'publish');
    expect(publish?.type === 'publish' ? publish.writes : []).toHaveLength(full.changes);
    expect(Buffer.byteLength(JSON.stringify(retrying))).toBeLessThan(ENTITY_LIMIT_BYTES);
  });

  it('given one author’s writes, when they publish, then the stored author is forgotten with them', () => {
    const branch = new Branch().run(
      {
        type: 'ChangeSettings',
        at: at(0),
        target: 'prod',
        window: { idleTimeoutMs: 5000, maxDurationMs: 0 },
      },
      admit(0, { path: 'a.yaml' }),
    );
    branch.answer(1, 'transient');
    branch.run(admit(2, { path: 'b.yaml' }), admit(3, { path: 'c.yaml', author: bob }));
    expect(branch.state.origins.filter((origin) => origin !== null)).toHaveLength(2);
    branch.run({ type: 'Tick', at: at(11) }).answer(12);
    expect(pendingWrites(branch.state)).toEqual([]);
    expect(branch.state.origins).toEqual([]);
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('given writes of two targets by one author, when one target’s prune tightens, then only its writes change', () => {
    const branch = new Branch().run(
      admit(0, { path: 'a.yaml' }),
      admit(1, { path: 'b.yaml', target: 'staging' }),
      admit(2, { path: 'c.yaml' }),
      admit(3, { path: 'd.yaml', target: 'staging' }),
    );
    branch.run({ type: 'ChangeSettings', at: at(4), target: 'prod', prune: 'Never' });
    expect(pendingWrites(branch.state).map((write) => [write.target, write.prune])).toEqual([
      ['prod', 'Never'],
      ['staging', 'OnEvent'],
      ['prod', 'Never'],
    ]);
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('given an attempt in flight, when more writes are decided and a snapshot is superseded, then the attempt still carries exactly what it planned', () => {
    const branch = new Branch().run(snapshot(0, '10'));
    const planned = pendingWrites(branch.state).map((write) => write.id);
    branch.run(snapshot(1, '11'), admit(2, { path: 'a.yaml' }), snapshot(3, '12'));
    const publish = owedEffects(branch.state).find((effect) => effect.type === 'publish');
    expect(publish?.type === 'publish' ? publish.writes.map((write) => write.id) : []).toEqual(planned);
    // the in-flight snapshot stays; the unplanned one of the same scope was superseded by the newer one
    expect(pendingWrites(branch.state).map((write) => write.snapshot?.revision ?? 'window')).toEqual([
      '10',
      'window',
      '12',
    ]);
    branch.answer(4);
    expect(pendingWrites(branch.state).map((write) => write.snapshot?.revision ?? 'window')).toEqual([
      'window',
      '12',
    ]);
  });
});
