import {
  MAX_OBJECT_DEPTH,
  MAX_RENDERED_BYTES,
  normalizeAuditEvents,
  normalizeSnapshot,
  normalizeWatchEvents,
  PayloadInvalid,
  PayloadRendersTooLarge,
} from '../../../shared/resources';

const target = { path: '.' };

/** `levels` nested maps: `{a: {a: … {a: 1}}}`, built without recursion. */
function nest(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}

const configMap = (extra: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'deep', namespace: 'shop' },
  ...extra,
});

const events = (object: object) => ({ events: [{ type: 'ADDED', resource: 'configmaps', object }] });

function refusedIssues(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadInvalid);
    return (error as PayloadInvalid).data.issues;
  }
  throw new Error('expected the body to be refused');
}

function auditList(...responseObjects: object[]) {
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    items: responseObjects.map((responseObject, index) => ({
      auditID: `a-${index}`,
      stage: 'ResponseComplete',
      verb: 'create',
      requestURI: '/api/v1/namespaces/shop/configmaps',
      user: { username: 'alice' },
      objectRef: { resource: 'configmaps', namespace: 'shop', apiVersion: 'v1' },
      responseStatus: { code: 201 },
      responseObject,
    })),
  };
}

describe('bounds on what one object may render to', () => {
  it(`given an object ${MAX_OBJECT_DEPTH} levels deep when normalized then it is recorded`, () => {
    const { changes } = normalizeWatchEvents({
      body: events(configMap({ spec: nest(MAX_OBJECT_DEPTH - 1) })),
      target,
    });
    expect(changes).toHaveLength(1);
    expect(changes[0]?.content).toContain(`${' '.repeat(2 * (MAX_OBJECT_DEPTH - 1))}a: 1\n`);
  });

  it(`given an object ${MAX_OBJECT_DEPTH + 1} levels deep when normalized then the events body is refused naming the top field`, () => {
    const issues = refusedIssues(() =>
      normalizeWatchEvents({ body: events(configMap({ spec: nest(MAX_OBJECT_DEPTH) })), target }),
    );
    expect(issues).toEqual([
      { path: 'events[0].object.spec', message: expect.stringContaining(`${MAX_OBJECT_DEPTH} levels`) },
    ]);
  });

  it('given lists nested past the depth limit when normalized then they count as levels too', () => {
    let list: unknown = [1];
    for (let level = 0; level < MAX_OBJECT_DEPTH; level++) list = [list];
    const issues = refusedIssues(() =>
      normalizeWatchEvents({ body: events(configMap({ data: { list } })), target }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['events[0].object.data']);
  });

  it('given an object 100,000 levels deep when normalized then it is refused, not a stack overflow', () => {
    const issues = refusedIssues(() =>
      normalizeWatchEvents({ body: events(configMap({ spec: nest(100_000) })), target }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['events[0].object.spec']);
  });

  it('given an object whose YAML would pass the size limit when normalized then it is refused naming the object', () => {
    const data = { big: 'x'.repeat(MAX_RENDERED_BYTES) };
    const issues = refusedIssues(() => normalizeWatchEvents({ body: events(configMap({ data })), target }));
    expect(issues).toEqual([{ path: 'events[0].object', message: expect.stringContaining('2 MiB') }]);
  });

  it('given a small body whose indentation would multiply it past the size limit when normalized then it is refused', () => {
    // 60 levels of one-letter keys, repeated: each leaf line is indented 120 spaces.
    const wide = Array.from({ length: 1000 }, () => nest(60));
    expect(JSON.stringify(wide).length).toBeLessThan(MAX_RENDERED_BYTES / 2);
    const issues = refusedIssues(() =>
      normalizeWatchEvents({ body: events(configMap({ spec: { wide } })), target }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['events[0].object']);
  });

  it('given a multi-line text of many short lines when normalized then the indentation of each line counts', () => {
    const text = 'a\n'.repeat(MAX_RENDERED_BYTES / 2);
    const issues = refusedIssues(() =>
      normalizeWatchEvents({ body: events(configMap({ data: { text } })), target }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['events[0].object']);
  });

  it('given a snapshot with one object too deep when normalized then the snapshot is refused naming the object field', () => {
    const issues = refusedIssues(() =>
      normalizeSnapshot({
        body: {
          scope: { group: '', resource: 'configmaps' },
          revision: '9',
          objects: [configMap({ data: { a: 'b' } }), configMap({ spec: nest(MAX_OBJECT_DEPTH) })],
        },
        target,
      }),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['objects[1].spec']);
  });

  it('given an audit EventList with one object too deep when normalized then that event is ignored with the path and the others are recorded', () => {
    const deep = {
      ...configMap({ spec: nest(MAX_OBJECT_DEPTH) }),
      metadata: { name: 'deep', namespace: 'shop' },
    };
    const fine = { ...configMap({ data: { a: 'b' } }), metadata: { name: 'fine', namespace: 'shop' } };
    const { changes, ignored } = normalizeAuditEvents({ body: auditList(deep, fine), target });
    expect(changes.map((change) => change.path)).toEqual(['shop/configmaps/fine.yaml']);
    expect(ignored).toEqual([
      {
        reason: 'object-too-deep',
        message: expect.stringMatching(/^items\[0\]\.responseObject\.spec nests .* 100 levels/),
        index: 0,
        auditID: 'a-0',
        identity: expect.objectContaining({ resource: 'configmaps', name: 'deep' }),
      },
    ]);
  });

  it('given an audit EventList with one object too large when normalized then that event is ignored as too large', () => {
    const big = configMap({ data: { big: 'x'.repeat(MAX_RENDERED_BYTES) } });
    const { changes, ignored } = normalizeAuditEvents({ body: auditList(big), target });
    expect(changes).toEqual([]);
    expect(ignored).toEqual([
      expect.objectContaining({
        reason: 'object-too-large',
        message: expect.stringContaining('items[0].responseObject'),
      }),
    ]);
  });
});

describe("a request's render budget", () => {
  // two ConfigMaps with text of more bytes than characters: the budget counts UTF-8 bytes
  const body = auditList(configMap({ data: { greeting: 'naïve ✓ 😀' } }), {
    ...configMap({ data: { greeting: 'ça va' } }),
    metadata: { name: 'other', namespace: 'shop' },
  });
  const rendered = normalizeAuditEvents({ body, target }).changes.map((change) => change.content ?? '');
  const bytes = rendered.reduce((sum, content) => sum + Buffer.byteLength(content), 0);

  it("given objects that render to exactly the request's budget then they are recorded, and a byte less refuses the request", () => {
    const budget = { leftBytes: bytes };
    expect(normalizeAuditEvents({ body, target: { ...target, renderBudget: budget } }).changes).toHaveLength(
      2,
    );
    expect(budget.leftBytes).toBe(0);
    expect(() =>
      normalizeAuditEvents({ body, target: { ...target, renderBudget: { leftBytes: bytes - 1 } } }),
    ).toThrow(PayloadRendersTooLarge);
  });

  it("given a request's objects then each one's rendered bytes are counted once, for its bound and the budget alike", () => {
    const byteLength = jest.spyOn(Buffer, 'byteLength');
    try {
      normalizeAuditEvents({ body, target: { ...target, renderBudget: { leftBytes: bytes } } });
      expect(byteLength.mock.calls.filter(([text]) => rendered.includes(text as string)).length).toBe(2);
    } finally {
      byteLength.mockRestore();
    }
  });
});
