// What kubescribe writes, read by a YAML 1.2 parser (`yaml`) and by YAML 1.1 ones (`yaml` in 1.1
// mode, and PyYAML, pure Python and on libyaml, which read U+0085, U+2028 and U+2029 as line breaks
// the way go-yaml, libyaml's port used by kubectl, Flux and Argo CD, does): every parser must read back exactly the values posted, as
// keys and as values, whatever their characters (YAML 1.1 §5.4 "Line Break Characters", §10 the
// types a plain scalar may resolve to: bool, int, float, null, timestamp, merge, value).
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { parse } from 'yaml';
import { wellFormed } from '../../../shared/json/exact-json';
import { type KubeObject, renderYaml, sanitizeObject } from '../../../shared/resources';
import { readWithPyYaml } from '../../support/pyyaml';

// The plain scalars YAML 1.1 resolves to something other than a string (yaml.org/type/*.html).
const YAML_11_WORDS = [
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'true', 'True', 'TRUE'],
  ...['false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF'],
  ...['~', 'null', 'Null', 'NULL', ''],
  ...['0b1010', '-0b1_0', '0777', '0o17', '0x1F', '0xA_B', '1_000', '+12', '-0', '190:20:30', '1:20'],
  ...['1.0', '1_000.5', '.5', '+.5e+3', '6.8523015e+5', '685.230_15e+03', '190:20:30.15', '1e3', 'E9'],
  ...['.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN'],
  ...['2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '2001-12-15T02:59:43.1Z'],
  ...['<<', '=', '!!str x', '!x', '&a', '*a', '%TAG', '@x', '`x', '---', '...', '- x', '? x', ': x'],
  ...['a: b', 'a #b', '#c', 'x:', '[x]', '{x}', '"x"', "'x'", '|', '>', 'x ', ' x'],
];

// Characters some YAML reader takes for a line break, a byte-order mark or a non-printable.
const AMBIGUOUS = [
  ...['\n', '\r', '\r\n', '\u0085', '\u2028', '\u2029', '\ufeff', '\t', ' ', '\u00a0'],
  ...['\u0000', '\u0007', '\u001b', '\u007f', '\u0080', '\u009f', '\ud800', '\udfff', '\ufffe', '\uffff'],
  ...['#', ':', '-', '"', "'", '\\', '|', '>', '&', '*', '!', '%', '@', '`', ',', '[', '{', '?'],
];

const word = fc.constantFrom(...YAML_11_WORDS);
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.oneof(fc.constantFrom(...AMBIGUOUS), fc.constantFrom('a', 'b', 'y', '1', '0')) }),
  word,
  fc.tuple(word, fc.constantFrom(...AMBIGUOUS), word).map((parts) => parts.join('')),
);
const entries = fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 })), {
  maxKeys: 4,
  noNullPrototype: true,
});

const configMap = (data: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'shop' }, data }) as KubeObject;

describe('YAML every parser reads the same', () => {
  it('given arbitrary Unicode and YAML 1.1 words as keys and values, when rendered, then yaml 1.2, yaml 1.1, PyYAML and libyaml read back exactly the posted object', () => {
    const seed = Date.now();
    // Keys as the apiserver (Go's decoder) holds them: a lone surrogate is U+FFFD, so two keys may be one.
    const samples = fc
      .sample(entries, { numRuns: 1500, seed })
      .map((data) =>
        Object.fromEntries(Object.entries(data).map(([key, value]) => [wellFormed(key), value])),
      );
    const documents = samples.map((data) => renderYaml(sanitizeObject(configMap(data))));
    // A value's lone surrogate is written U+FFFD: UTF-8 cannot hold it, go-yaml and libyaml refuse its escape.
    const expected = samples.map((data) =>
      sanitizeObject(configMap(wellFormedValues(data) as Record<string, unknown>)),
    );
    // A commit holds UTF-8 bytes: every parser reads what those bytes decode to.
    const stored = documents.map((doc) => Buffer.from(doc, 'utf8').toString('utf8'));
    const python = readWithPyYaml(documents);
    const libyaml = readWithPyYaml(documents, 'CSafeLoader');
    const failures: unknown[] = [];
    for (const [index, document] of stored.entries()) {
      const reads = {
        'yaml 1.2': attempt(() => parse(document, { version: '1.2', uniqueKeys: true })),
        'yaml 1.1': attempt(() => parse(document, { version: '1.1', uniqueKeys: true })),
        PyYAML: python[index],
        'PyYAML on libyaml': libyaml[index],
      };
      for (const [reader, read] of Object.entries(reads)) {
        if (read === undefined || !('value' in read) || !isDeepStrictEqual(read.value, expected[index])) {
          failures.push({ reader, data: samples[index], document, read });
        }
      }
    }
    expect({ seed, failures: failures.slice(0, 5), count: failures.length }).toEqual({
      seed,
      failures: [],
      count: 0,
    });
  });
});

function attempt(read: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: read() };
  } catch (error) {
    return { error: String(error) };
  }
}

function wellFormedValues(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedValues);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, wellFormedValues(item)]));
}
