// A schema's quick parse answers for zod: whatever it accepts, zod accepts with the same output
// (the same values, the same keys in the same order, which the YAML of a loose object follows), and
// whatever zod refuses it leaves to zod, whose issues the caller gets. Checked on the real
// apiservers' EventLists of tests/fixtures/audit and on mutations of them, and on a schema with
// every part the quick parser follows.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { z } from 'zod';
import { branchOperationSchemas } from '../../../shared/app/entity/branch-operations';
import { authorSchema, changeSchema } from '../../../shared/branch';
import { NOT_QUICK, quickParse, quickParser, quickSafeParse } from '../../../shared/json/quick-parse';
import { changeListSchema } from '../../../shared/payloads/change-batches';
import { auditEventListSchema } from '../../../shared/resources/audit';
import { kubeObjectSchema } from '../../../shared/resources/kube-object';
import { loadFixture } from '../resources/load-fixture';

const FIXTURES = [
  'configmap-patch.yaml',
  'deletecollection-hollow.json',
  'deletecollection-teardown-hollow.json',
  'deletecollection.json',
  'deployment-scale-event.json',
  'deployment-scale.json',
  'mixed-batch.yaml',
  'secret-dryrun-patch.yaml',
  'secret-persisted-patch.yaml',
  'unchanged-rv-update.yaml',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type EventList = { apiVersion: string; kind: string; items: { responseObject?: Json }[] };

/** An EventList as the route reads it, JSON text parsed; a fixture of one event is listed alone. */
function eventList(name: string): EventList {
  const fixture = JSON.parse(JSON.stringify(loadFixture(`audit/${name}`))) as
    | EventList
    | EventList['items'][number];
  return 'items' in fixture
    ? fixture
    : { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: [fixture] };
}

/** The value with every object's keys listed in order, `undefined` kept: what deep equality leaves out. */
function inOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inOrder);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).map(([key, item]) => [key, inOrder(item)]);
  return value;
}

/** The quick parse agrees with zod: it leaves the input to zod, or gives zod's output exactly. */
function agrees(schema: z.ZodType, input: unknown): boolean {
  const quick = quickParser(schema)!(input);
  if (quick === NOT_QUICK) return true;
  const zod = schema.safeParse(input);
  return (
    zod.success && isDeepStrictEqual(quick, zod.data) && isDeepStrictEqual(inOrder(quick), inOrder(zod.data))
  );
}

/** Values that sit on a bound or a rule of a schema here. */
const odd = fc.constantFrom<unknown>(
  undefined,
  null,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  2 ** 53,
  2 ** 31,
  -1,
  1.5,
  '',
  '0',
  '😀',
  '\ud800',
  'x'.repeat(512),
  'x'.repeat(513),
  '😀'.repeat(300),
  [],
  {},
  JSON.parse('{"__proto__": {"polluted": true}}'),
  Object.create(null),
  9007199254740993n,
);
const anyValue = fc.oneof(odd, fc.jsonValue({ maxDepth: 2 }));

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Every path to a value inside `value`, the root included. */
function pathsOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const paths = [at];
  if (Array.isArray(value))
    for (const [index, item] of value.entries()) paths.push(...pathsOf(item, [...at, index]));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...at, key]));
  return paths;
}

type Mutation = { pick: number; kind: 'replace' | 'delete' | 'add'; key: string; value: unknown };

/** A copy of `value` with one value replaced, one key deleted, or one key added, at a picked path. */
function mutated(value: unknown, { pick, kind, key, value: replacement }: Mutation): unknown {
  const copy = structuredClone(value);
  const paths = pathsOf(copy);
  const path = paths[pick % paths.length]!;
  if (path.length === 0) return kind === 'replace' ? replacement : copy;
  let parent = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (kind === 'replace') parent[last] = replacement;
  else if (kind === 'delete') delete parent[last];
  else {
    const target = parent[last];
    if (typeof target === 'object' && target !== null && !Array.isArray(target))
      Object.defineProperty(target, key, {
        value: replacement,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return copy;
}

const mutation = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom<Mutation['kind']>('replace', 'delete', 'add'),
  key: fc.constantFrom('__proto__', 'extra', 'name', 'labels', 'username', 'code', 'items'),
  value: anyValue,
});

describe('a quick parse of a schema', () => {
  it('is built for every schema the ingest path checks each event, object and change with', () => {
    for (const schema of [
      auditEventListSchema,
      kubeObjectSchema,
      changeSchema,
      authorSchema,
      changeListSchema,
      branchOperationSchemas.apply,
    ])
      expect(quickParser(schema)).toBeDefined();
  });

  it('is not built for a schema with a part it does not follow (a transform, a union, a format)', () => {
    expect(quickParser(z.object({ name: z.string().transform((name) => name.trim()) }))).toBeUndefined();
    expect(quickParser(z.union([z.string(), z.number()]))).toBeUndefined();
    expect(quickParser(z.object({ mail: z.email() }))).toBeUndefined();
  });

  it.each(FIXTURES)('accepts the EventList %s quickly, with zod’s output', (name) => {
    const list = eventList(name);
    const quick = quickParser(auditEventListSchema)!(list);
    expect(quick).not.toBe(NOT_QUICK);
    expect(agrees(auditEventListSchema, list)).toBe(true);
  });

  it('accepts the fixtures’ objects quickly where zod accepts them, with zod’s output, keys in order', () => {
    const objects = FIXTURES.flatMap((name) => eventList(name).items.map((event) => event.responseObject));
    const recorded = objects.filter((object) => kubeObjectSchema.safeParse(object).success);
    expect(recorded.length).toBeGreaterThan(5);
    for (const object of recorded) {
      expect(quickParser(kubeObjectSchema)!(object)).not.toBe(NOT_QUICK);
      expect(agrees(kubeObjectSchema, object)).toBe(true);
    }
  });

  it('agrees with zod on every mutation of a real event and of its object', () => {
    const events = FIXTURES.flatMap((name) => eventList(name).items);
    fc.assert(
      fc.property(
        fc.constantFrom(...events),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        (event, mutations) => {
          const list = mutations.reduce<unknown>((value, change) => mutated(value, change), {
            apiVersion: 'audit.k8s.io/v1',
            kind: 'EventList',
            items: [event],
          });
          const object = mutations.reduce<unknown>(
            (value, change) => mutated(value, change),
            event.responseObject,
          );
          expect(agrees(auditEventListSchema, list)).toBe(true);
          expect(agrees(kubeObjectSchema, object)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('agrees with zod on a change and an author as the HTTP layer checks them, bounds and all', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 3 }),
      odd,
      fc.constantFrom('x'.repeat(1024), 'x'.repeat(1025)),
    );
    const change = fc.record(
      {
        path: text,
        operation: fc.constantFrom<unknown>('upsert', 'delete', 'Upsert', 3),
        payloadRef: text,
        bytes: fc.oneof(fc.integer(), odd),
        resourceVersion: text,
        uid: text,
        subject: fc.oneof(
          odd,
          fc.record({ apiVersion: text, resource: text, namespace: text, name: text }, { requiredKeys: [] }),
        ),
        verb: fc.constantFrom<unknown>('create', 'update', 'patch', undefined),
        selector: text,
        unknown: odd,
      },
      { requiredKeys: [] },
    );
    const author = fc.record({ name: text, email: text, username: text, extra: odd }, { requiredKeys: [] });
    fc.assert(
      fc.property(change, author, (aChange, anAuthor) => {
        expect(agrees(changeSchema, aChange)).toBe(true);
        expect(agrees(authorSchema, anAuthor)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with zod on every mutation of a request’s signal to its branch (settings, a run, changes)', () => {
    const at = '2026-12-04T10:00:00.000Z';
    const author = { name: 'alice', email: 'alice@example.com', username: 'alice' };
    const change = {
      path: 'shop/apps/deployments/web.yaml',
      operation: 'upsert',
      payloadRef: `sha256-${'a'.repeat(64)}#3`,
      bytes: 812,
      resourceVersion: '1234',
      subject: { apiVersion: 'apps/v1', resource: 'deployments', namespace: 'shop', name: 'web' },
      verb: 'create',
    };
    const signal = {
      requestId: 'AbCdEfGh-1a',
      commands: [
        {
          type: 'ConfigureBranch',
          at,
          limits: { bufferBytes: 8388608, retryInitialMs: 1000, retryMaxMs: 300000, pushCooldownMs: 0 },
        },
        {
          type: 'ChangeSettings',
          at,
          target: 'prod',
          path: 'clusters/prod',
          window: { idleTimeoutMs: 1000, maxDurationMs: 10000 },
          prune: 'Never',
          parentBranch: null,
          suspend: false,
          attributionWaitMs: 0,
          publish: 'push',
        },
        {
          type: 'AdmitRun',
          at,
          target: 'prod',
          author,
          attribution: 'audit',
          run: { ref: `sha256-${'b'.repeat(64)}`, first: 0, n: 400, bytes: 320000 },
        },
        { type: 'AdmitChanges', at, target: 'prod', author, attribution: 'audit', changes: [change] },
        {
          type: 'RefuseChanges',
          at,
          target: 'prod',
          changes: [
            { object: 'v1 configmaps a/b', reason: 'value-out-of-bounds', message: 'path: too long' },
          ],
        },
      ],
    };
    const apply = branchOperationSchemas.apply;
    expect(quickParser(apply)!({ ...signal, commands: signal.commands.slice(0, 4) })).not.toBe(NOT_QUICK);
    expect(agrees(apply, signal)).toBe(true);
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const mutatedSignal = mutations.reduce<unknown>((value, change) => mutated(value, change), signal);
        expect(agrees(apply, mutatedSignal)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves every object to zod in a Node that refuses to generate code, and still parses', () => {
    // `node --disallow-code-generation-from-strings` makes `new Function` throw, as a locked-down host may
    const script = `
      const { quickParser, quickSafeParse } = require('./shared/json/quick-parse');
      const { auditEventListSchema } = require('./shared/resources/audit');
      const list = { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: [] };
      console.log(JSON.stringify({
        quick: quickParser(auditEventListSchema) !== undefined,
        parsed: quickSafeParse(auditEventListSchema)(list).success,
      }));`;
    const run = (flags: string[]) =>
      JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', ...flags, '-e', script], {
          cwd: join(__dirname, '../../..'),
          encoding: 'utf8',
        }),
      );
    expect(run(['--disallow-code-generation-from-strings'])).toEqual({ quick: false, parsed: true });
    expect(run([])).toEqual({ quick: true, parsed: true });
  });

  describe('on each part it follows', () => {
    const schema = z.object({
      strict: z.strictObject({ id: z.number().int().nonnegative().max(10) }).optional(),
      flag: z.boolean().optional(),
      share: z.number().positive().lt(1).optional(),
      list: z.array(z.string()).min(1).max(2).optional(),
      code: z
        .string()
        .regex(/^[a-z]{1,3}$/)
        .optional(),
      shape: z
        .discriminatedUnion('kind', [
          z.object({ kind: z.literal('dot'), at: z.number() }),
          z.object({ kind: z.literal('label'), text: z.string().transform((text) => text.trim()) }),
        ])
        .optional(),
      loose: z.looseObject({ kind: z.literal('Thing') }).optional(),
      tags: z.record(z.string(), z.array(z.string().min(1).max(3)).nullish()).optional(),
      level: z.enum(['low', 'high']).nullable().optional(),
      ratio: z.number().min(0.5).optional(),
      note: z
        .string()
        .refine((note) => !note.includes('!'))
        .optional(),
      extra: z.unknown().optional(),
    });
    const refined = schema.superRefine((value, context) => {
      if (value.level === 'high' && value.strict === undefined)
        context.addIssue({ code: 'custom', message: 'a high level needs an id', path: ['strict'] });
    });

    const fields = {
      strict: fc.oneof(
        odd,
        fc.record({ id: fc.oneof(fc.integer({ min: -2, max: 12 }), odd) }, { requiredKeys: [] }),
      ),
      flag: fc.oneof(odd, fc.boolean()),
      share: fc.oneof(odd, fc.constantFrom<unknown>(0, 1, 0.5, 1e-9)),
      list: fc.oneof(odd, fc.array(fc.oneof(odd, fc.string({ maxLength: 2 })), { maxLength: 3 })),
      code: fc.oneof(odd, fc.constantFrom<unknown>('ab', 'abcd', 'A', 'a\n')),
      shape: fc.oneof(
        odd,
        fc.record(
          {
            kind: fc.constantFrom<unknown>('dot', 'label', 'other'),
            at: fc.oneof(odd, fc.integer()),
            text: fc.oneof(odd, fc.string({ maxLength: 3 })),
          },
          { requiredKeys: [] },
        ),
      ),
      loose: fc.oneof(odd, fc.record({ kind: fc.constantFrom<unknown>('Thing', 'thing'), more: anyValue })),
      tags: fc.oneof(
        odd,
        fc.dictionary(
          fc.string({ maxLength: 3 }),
          fc.oneof(odd, fc.array(fc.oneof(odd, fc.string({ maxLength: 4 })))),
        ),
      ),
      level: fc.oneof(odd, fc.constantFrom<unknown>('low', 'high', 'mid')),
      ratio: fc.oneof(odd, fc.double()),
      note: fc.oneof(odd, fc.string({ maxLength: 4 })),
      extra: anyValue,
    };
    // each field alone as often as all of them together: an input with many fields is rarely valid throughout
    const value = fc.oneof(
      fc.record(fields, { requiredKeys: [] }),
      ...Object.entries(fields).map(([key, arbitrary]) => fc.record({ [key]: arbitrary })),
    );

    it.each([
      ['the plain schema', schema],
      ['the refined schema', refined],
    ])('%s: agrees with zod, and answers as zod does through quickSafeParse', (_label, aSchema) => {
      const parse = quickSafeParse(aSchema);
      fc.assert(
        fc.property(value, (input) => {
          expect(agrees(aSchema, input)).toBe(true);
          const quick = parse(input);
          const zod = aSchema.safeParse(input);
          expect(quick.success).toBe(zod.success);
          if (!quick.success && !zod.success) expect(quick.error.issues).toEqual(zod.error.issues);
          if (zod.success) expect(quickParse(aSchema)(input)).toEqual(zod.data);
          else expect(thrownBy(() => quickParse(aSchema)(input))).toEqual(zod.error);
        }),
        { numRuns: 3000 },
      );
    });

    it('takes what zod takes quickly: a valid value with every part, keys in order', () => {
      const input = {
        strict: { id: 3 },
        flag: true,
        share: 0.25,
        list: ['a', 'b'],
        code: 'abc',
        shape: { kind: 'dot', at: 2 },
        loose: { kind: 'Thing', more: [1], extra: undefined },
        tags: { b: ['ab'], a: null, c: undefined },
        level: 'high',
        ratio: 0.5,
        note: 'ok',
        extra: { any: 'thing' },
        dropped: true,
      };
      expect(quickParser(refined)!(input)).not.toBe(NOT_QUICK);
      expect(agrees(refined, input)).toBe(true);
    });

    it('leaves to zod a string whose length zod counts in code points, and zod’s answer stands', () => {
      // zod counts code points in a string over its maximum of units, or under twice its minimum
      const bounded = z.string().min(2).max(3);
      expect(quickParser(bounded)!('😀😀')).toBe(NOT_QUICK);
      expect(quickSafeParse(bounded)('😀😀')).toEqual({ success: true, data: '😀😀' });
      expect(quickParser(bounded)!('ab')).toBe(NOT_QUICK);
      expect(quickSafeParse(bounded)('ab')).toEqual({ success: true, data: 'ab' });
      expect(quickParser(z.string().min(1).max(3))!('ab')).toBe('ab');
    });

    it('leaves to zod a loose object with an own `__proto__` key, which zod leaves out', () => {
      const loose = z.looseObject({ kind: z.string() });
      const input = JSON.parse('{"kind": "Thing", "__proto__": {"polluted": true}}');
      expect(quickParser(loose)!(input)).toBe(NOT_QUICK);
      const parsed = quickSafeParse(loose)(input);
      expect(parsed.success && Object.getPrototypeOf(parsed.data)).toBe(Object.prototype);
    });
  });
});
