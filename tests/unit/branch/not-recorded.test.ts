// What a target did not record stays small whatever the traffic: counts by reason (the code's
// vocabulary, capped), the latest few examples, and at most one audit-level note per target.
import fc from 'fast-check';
import {
  type BranchCommand,
  branchCommandSchema,
  handle,
  initialState,
  NOT_RECORDED_EXAMPLES,
  notRecordedView,
} from '../../../shared/branch';

const START_MS = Date.UTC(2026, 0, 1);
const reason = fc.integer({ min: 0, max: 60 }).map((n) => `reason-${n}`);

const command = fc
  .record({
    target: fc.constantFrom('prod', 'staging'),
    counts: fc.dictionary(reason, fc.integer({ min: 1, max: 400 }), { maxKeys: 8 }),
    examples: fc.array(
      fc.record({
        object: fc.constant('v1 configmaps shop/a'),
        reason,
        message: fc.string({ minLength: 1, maxLength: 500 }),
      }),
      {
        maxLength: NOT_RECORDED_EXAMPLES,
      },
    ),
    objectless: fc.option(fc.constantFrom('Metadata', 'Request'), { nil: undefined }),
  })
  .map(({ objectless, ...rest }) => ({
    ...rest,
    ...(objectless
      ? { audit: { objectless: { level: objectless, resource: 'configmaps' }, withObjects: [] } }
      : {}),
  }));

it('keeps counts by reason, the latest examples, and nothing that grows with traffic', () => {
  fc.assert(
    fc.property(fc.array(command, { minLength: 1, maxLength: 80 }), (commands) => {
      let state = initialState();
      const totals: Record<string, number> = {};
      commands.forEach((counted, index) => {
        const next: BranchCommand = branchCommandSchema.parse({
          type: 'CountNotRecorded',
          at: new Date(START_MS + index * 1000).toISOString(),
          ...counted,
        });
        state = handle(state, next).state;
        for (const count of Object.values(counted.counts))
          totals[counted.target] = (totals[counted.target] ?? 0) + count;
      });
      for (const target of ['prod', 'staging']) {
        const view = notRecordedView(state.notRecorded?.[target]);
        // Nothing lost: every event counted, under its reason or `other` past the cap.
        expect(view.count).toBe(totals[target] ?? 0);
        expect(Object.keys(view.byReason).length).toBeLessThanOrEqual(41);
        expect(view.recent.length).toBeLessThanOrEqual(NOT_RECORDED_EXAMPLES);
        for (const example of view.recent) expect(example.message.length).toBeLessThanOrEqual(300);
        const last = [...commands].reverse().find((c) => c.target === target && c.examples.length > 0);
        if (last) expect(view.recent.at(-1)?.reason).toBe(last.examples.at(-1)?.reason);
      }
      expect(JSON.stringify(state.notRecorded ?? {}).length).toBeLessThan(2 * 8 * 1024);
    }),
    { seed: 20261203, numRuns: 200 },
  );
});

it('raises AuditObjectsMissing from the first objectless batch and clears it when that resource arrives with objects', () => {
  const count = (at: string, audit: object) =>
    branchCommandSchema.parse({
      type: 'CountNotRecorded',
      at,
      target: 'prod',
      counts: {},
      examples: [],
      audit,
    });
  let state = handle(
    initialState(),
    count('2026-01-01T00:00:00Z', {
      objectless: { level: 'Request', resource: 'apps/deployments' },
      withObjects: [],
    }),
  ).state;
  state = handle(
    state,
    count('2026-01-01T00:01:00Z', {
      objectless: { level: 'Metadata', resource: 'configmaps' },
      withObjects: [],
    }),
  ).state;
  expect(notRecordedView(state.notRecorded?.prod).condition).toMatchObject({
    type: 'AuditObjectsMissing',
    reason: 'AuditLevelMetadata',
    lastTransitionTime: '2026-01-01T00:00:00.000Z',
  });
  state = handle(state, count('2026-01-01T00:02:00Z', { withObjects: ['apps/deployments'] })).state;
  expect(notRecordedView(state.notRecorded?.prod).condition).toBeDefined();
  state = handle(state, count('2026-01-01T00:03:00Z', { withObjects: ['configmaps'] })).state;
  expect(notRecordedView(state.notRecorded?.prod).condition).toBeUndefined();
});

it('counts reasons past the first 40 as `other`, losing none', () => {
  let state = initialState();
  for (let n = 0; n < 100; n++) {
    const counted = branchCommandSchema.parse({
      type: 'CountNotRecorded',
      at: new Date(START_MS + n * 1000).toISOString(),
      target: 'prod',
      counts: { [`reason-${n}`]: 2 },
      examples: [{ object: 'v1 configmaps shop/a', reason: `reason-${n}`, message: 'm' }],
    });
    state = handle(state, counted).state;
  }
  const view = notRecordedView(state.notRecorded?.prod);
  expect(Object.keys(view.byReason)).toHaveLength(41);
  expect(view.byReason.other).toBe(120);
  expect(view.count).toBe(200);
  expect(view.recent.map((example) => example.reason)).toEqual(
    [95, 96, 97, 98, 99].map((n) => `reason-${n}`),
  );
});
