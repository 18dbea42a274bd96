import fc from 'fast-check';
import { parse } from 'yaml';
import { type KubeObject, renderYaml, sanitizeObject } from '../../../shared/resources';
import { isPlainSafe } from '../../../shared/resources/yaml-scalar';

const base = (extra: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app', namespace: 'shop' },
    ...extra,
  }) as KubeObject;

function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, random));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  const result: Record<string, unknown> = {};
  for (const [key, item] of entries)
    Object.defineProperty(result, key, {
      value: shuffleKeys(item, random),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return result;
}

// Strings a YAML reader could mistake for something else, mixed with arbitrary Unicode.
const trickyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme-ascii' }),
  fc.constantFrom(
    ...[
      'yes',
      'no',
      'on',
      'off',
      'Y',
      'n',
      'OFF',
      '3',
      '1.0',
      '.5',
      '+1',
      '0x1F',
      '0o17',
      '017',
      '1_000',
      '1:20',
      '1e3',
    ],
    ...[
      '~',
      'null',
      '.inf',
      '-.inf',
      '.nan',
      'NaN',
      '2026-01-01',
      '2026-01-01T10:00:00Z',
      '<<',
      '=',
      '!tag',
      '&a',
    ],
    ...[
      '*a',
      '%x',
      '@x',
      '`x',
      '"q"',
      "'q'",
      '|',
      '>',
      '{}',
      '[]',
      ',',
      '?x',
      ':x',
      'x:',
      'x #y',
      'a: b',
      '- x',
    ],
    ...['#c', 'a\nb', 'a\n', '\n\n', ' x', 'x ', 'a\r\nb', '\tx\ny', 'x\n \n', '\u2028', '\ufeffx', '\u0085'],
  ),
);
const jsonObject = fc.dictionary(
  trickyString,
  fc
    .jsonValue({ maxDepth: 3 })
    .map((value) => value)
    .chain((value) => fc.oneof(fc.constant(value), trickyString, fc.array(trickyString, { maxLength: 3 }))),
  { maxKeys: 6 },
);

describe('sanitizing and rendering an object as YAML', () => {
  it('given any spec and data when keys arrive in any order then the YAML bytes are identical', () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, fc.integer(), (spec, data, seed) => {
        let state = seed;
        const random = () => {
          state = (state * 1103515245 + 12345) % 2147483648;
          return Math.abs(state) / 2147483648;
        };
        const object = base({ spec, data });
        const shuffled = shuffleKeys(object, random) as KubeObject;
        expect(renderYaml(sanitizeObject(shuffled))).toBe(renderYaml(sanitizeObject(object)));
      }),
    );
  });

  it('given a map of any number of keys when rendered then its keys follow in UTF-16 code-unit order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'binary', minLength: 1 }), { maxLength: 40, size: 'max' }),
        (keys) => {
          const data = Object.fromEntries(keys.map((key) => [key, 'v']));
          // read as Maps: a plain object would list integer-like keys first
          const read = parse(renderYaml(sanitizeObject(base({ data }))), {
            version: '1.2',
            mapAsMap: true,
          }) as Map<string, unknown>;
          const rendered = read.get('data');
          const byCodeUnit = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expect(rendered instanceof Map ? [...rendered.keys()] : []).toEqual(byCodeUnit);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(['1.2', '1.1'] as const)(
    'given any spec when rendered then a YAML %s reader gets the sanitized object back',
    (version) => {
      fc.assert(
        fc.property(jsonObject, (spec) => {
          const sanitized = sanitizeObject(base({ spec }));
          const read = parse(renderYaml(sanitized), { version, uniqueKeys: true });
          expect(JSON.stringify(sortKeys(read))).toBe(JSON.stringify(sortKeys(sanitized)));
        }),
        { numRuns: 300 },
      );
    },
  );

  it.each([
    ['yes', '"yes"'],
    ['on', '"on"'],
    ['3', '"3"'],
    ['1.10', '"1.10"'],
    ['2026-01-01', '"2026-01-01"'],
    ['~', '"~"'],
    ['null', '"null"'],
    ['a: b', '"a: b"'],
    ['-x', '"-x"'],
    ['', '""'],
    ['tab\there', '"tab\\there"'],
    ['nginx:1.25', 'nginx:1.25'],
    ['app.kubernetes.io/name', 'app.kubernetes.io/name'],
    ['Contains a CA bundle', 'Contains a CA bundle'],
  ])('given the string %p when rendered then it is written as %s', (value, written) => {
    expect(renderYaml(sanitizeObject(base({ data: { v: value } })))).toContain(`\ndata:\n  v: ${written}\n`);
  });

  it.each([
    ['no final newline', 'a\nb', '  v: |-\n    a\n    b\n'],
    ['extra final newlines', 'a\n\n', '  v: |+\n    a\n\n'],
    ['an empty line inside', 'a\n\nb\n', '  v: |\n    a\n\n    b\n'],
    ['a leading space', ' a\nb\n', '  v: " a\\nb\\n"\n'],
    ['a carriage return', 'a\r\nb\n', '  v: "a\\r\\nb\\n"\n'],
    ['only a newline', '\n', '  v: "\\n"\n'],
  ])('given multi-line text with %s when rendered then it reads back exactly', (_, value, written) => {
    const yaml = renderYaml(sanitizeObject(base({ data: { v: value } })));
    expect(yaml).toContain(written);
    expect((parse(yaml) as { data: { v: string } }).data.v).toBe(value);
  });

  it.each([
    ['a line separator', 'a\u2028b\n', '  v: "a\\u2028b\\n"\n'],
    ['a next-line', 'a\u0085b\n', '  v: "a\\u0085b\\n"\n'],
    ['a byte-order mark', '\ufeffa\nb\n', '  v: "\\ufeffa\\nb\\n"\n'],
    ['a lone surrogate', 'a\ud800', '  v: "a\ufffd"\n'],
  ])('given text with %s when rendered then it is escaped, never raw', (_, value, written) => {
    expect(renderYaml(sanitizeObject(base({ data: { v: value } })))).toContain(written);
  });

  it('given multi-line text in other scripts, emoji and no-break spaces then it stays a literal block, byte for byte as before', () => {
    const value = 'café ☕\n\u00a0naïve 😀\n日本語\n';
    expect(renderYaml(sanitizeObject(base({ data: { v: value } })))).toContain(
      `  v: |\n    café ☕\n    \u00a0naïve 😀\n    日本語\n`,
    );
  });

  it('given integers beyond 2^53 read exactly when rendered then their digits are written, read back exactly', () => {
    const spec = { max: 9223372036854775807n, min: -9223372036854775808n, beyond: 10n ** 30n };
    const yaml = renderYaml(sanitizeObject(base({ spec })));
    expect(yaml).toContain(
      'spec:\n  beyond: 1000000000000000000000000000000\n  max: 9223372036854775807\n  min: -9223372036854775808\n',
    );
    expect(parse(yaml, { intAsBigInt: true }).spec).toEqual(spec);
  });

  it('given small and large floats when rendered then both YAML versions read numbers', () => {
    const yaml = renderYaml(sanitizeObject(base({ spec: { small: 1e-7, large: 1e21, half: 0.5 } })));
    expect(parse(yaml, { version: '1.1' }).spec).toEqual({ small: 1e-7, large: 1e21, half: 0.5 });
  });

  it('given an object with status and server metadata when sanitized then only desired state and chosen metadata remain', () => {
    const sanitized = sanitizeObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'app',
        namespace: 'shop',
        uid: 'u',
        resourceVersion: '1',
        generation: 3,
        creationTimestamp: 't',
        managedFields: [],
        ownerReferences: [],
        finalizers: ['f'],
        labels: {
          keep: 'yes',
          'kustomize.toolkit.fluxcd.io/name': 'x',
          'kro.run/owned': 'x',
          'applyset.kubernetes.io/id': 'x',
          'app.kubernetes.io/instance': 'i',
        },
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{}',
          'argocd.argoproj.io/tracking-id': 'x',
          'argocd.argoproj.io/sync-wave': '1',
          'deployment.kubernetes.io/revision': '2',
          'kcp.io/cluster': 'c',
        },
      },
      data: { a: 'b' },
      immutable: true,
      status: { phase: 'x' },
    } as KubeObject);
    expect(sanitized).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'app',
        namespace: 'shop',
        labels: { keep: 'yes', 'app.kubernetes.io/instance': 'i' },
        annotations: { 'argocd.argoproj.io/sync-wave': '1' },
      },
      data: { a: 'b' },
    });
  });

  it('given labels and annotations that are all stripped when sanitized then the empty maps are omitted', () => {
    const sanitized = sanitizeObject(
      base({
        metadata: {
          name: 'app',
          labels: { 'kro.run/x': 'y' },
          annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' },
        },
      }),
    );
    expect(sanitized.metadata).toEqual({ name: 'app' });
  });

  it('given a Pod and a claim when sanitized then the node and volume the cluster assigned are dropped', () => {
    const pod = sanitizeObject(base({ kind: 'Pod', spec: { nodeName: 'node-1', containers: [] } }));
    const claim = sanitizeObject(
      base({
        kind: 'PersistentVolumeClaim',
        spec: { volumeName: 'pv', volumeMode: 'Filesystem', resources: {} },
      }),
    );
    expect(pod.spec).toEqual({ containers: [] });
    expect(claim.spec).toEqual({ resources: {} });
  });

  it('given a Service when sanitized then the posted object itself is left as it was', () => {
    const service = base({ kind: 'Service', spec: { clusterIP: '10.0.0.1', ports: [{ port: 80 }] } });
    const sanitized = sanitizeObject(service);
    expect(sanitized.spec).toEqual({ ports: [{ port: 80 }] });
    expect((service as { spec?: unknown }).spec).toEqual({ clusterIP: '10.0.0.1', ports: [{ port: 80 }] });
  });

  it('given an RBAC role when sanitized then its rules and bindings fields are kept', () => {
    const role = sanitizeObject({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'r' },
      subjects: [{ kind: 'User', name: 'alice' }],
      roleRef: { kind: 'Role', name: 'r' },
    } as KubeObject);
    expect(Object.keys(role)).toEqual(['apiVersion', 'kind', 'metadata', 'subjects', 'roleRef']);
  });

  it('given a multi-line string and nested lists when rendered then it uses a literal block and indented sequences', () => {
    const yaml = renderYaml(
      sanitizeObject(
        base({
          data: { 'script.sh': '#!/bin/sh\necho hi\n', list: 'x' },
          spec: { items: [[1, 2], { b: 1, a: 2 }] },
        }),
      ),
    );
    expect(yaml).toBe(
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: app',
        '  namespace: shop',
        'data:',
        '  list: x',
        '  script.sh: |',
        '    #!/bin/sh',
        '    echo hi',
        'spec:',
        '  items:',
        '    - - 1',
        '      - 2',
        '    - a: 2',
        '      b: 1',
        '',
      ].join('\n'),
    );
  });

  it('given a very long string when rendered then it is not folded over several lines', () => {
    const long = 'x'.repeat(300);
    expect(renderYaml(sanitizeObject(base({ data: { long } })))).toContain(`  long: ${long}\n`);
  });

  it('given the same sub-object twice when rendered then no YAML anchors appear', () => {
    const shared = { a: 1 };
    expect(renderYaml(sanitizeObject(base({ spec: { one: shared, two: shared } })))).not.toMatch(/[&*]a\d/);
  });

  it('given a __proto__ key from a cluster when rendered then it is kept as data', () => {
    const spec = JSON.parse('{"__proto__": {"x": 1}, "b": 2}');
    expect(renderYaml(sanitizeObject(base({ spec })))).toContain('  __proto__:\n    x: 1\n');
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(result, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
    });
  }
  return result;
}

describe('quoting exponent-like keys and values', () => {
  it('quotes E9 and 1e5 so that a YAML 1.1 reader does not take them for floats (found by the property test)', () => {
    const yaml = renderYaml(sanitizeObject(base({ spec: { E9: 'E9', other: '1e5' } })));
    expect(yaml).toContain('"E9": "E9"');
    expect(yaml).toContain('other: "1e5"');
    expect(parse(yaml, { version: '1.1' }).spec).toEqual({ E9: 'E9', other: '1e5' });
  });
});

describe('plain scalars', () => {
  // Every rule tried on every string, as the emitter decided before it tried only those a string can break.
  const everyRule = (text: string) =>
    /^[A-Za-z_/][-A-Za-z0-9 _./:@+=,()]*$/.test(text) &&
    !/^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|nan|NaN|NAN|inf|Inf|INF)$/.test(
      text,
    ) &&
    !/^[-+]?[0-9_]*\.?[0-9_]*[eE][-+]?[0-9]+$/.test(text) &&
    !text.includes(': ') &&
    !text.includes(' #') &&
    !text.endsWith(':') &&
    !text.endsWith(' ');

  it('given any string then it is written plain exactly when every rule allows it', () => {
    const pieces = ['e', 'E', '_', '1', '5', '.', '+', '-', ':', ' ', '#', 'y', 'on', 'NaN', 'x', '/', '@'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((parts) => parts.join('')),
        ),
        (text) => expect(isPlainSafe(text)).toBe(everyRule(text)),
      ),
      { numRuns: 5000 },
    );
    for (const word of [
      'e5',
      'E9',
      '_1e5',
      '_.e-3',
      'e',
      'yes',
      'FALSE',
      'Falsey',
      'a #b',
      'a: b',
      'x:',
      'x ',
    ])
      expect(isPlainSafe(word)).toBe(everyRule(word));
  });
});
