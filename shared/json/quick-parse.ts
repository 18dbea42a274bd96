import type { z } from 'zod';

/**
 * A zod schema's parse for the input it plainly accepts, without zod's bookkeeping. zod runs every
 * value through a payload object with an issue list of its own (about 5 KB of garbage for one
 * audit event); on the ingest path that was near half of what the main thread allocated, and the
 * scavenges it caused ran on both cores. The schema stays the one definition: a quick parser is
 * built from it, and for input it is not sure of (anything zod would refuse, and some corners zod
 * accepts) it answers {@link NOT_QUICK}, and zod parses, with zod's own issues. Whatever it
 * accepts, zod accepts with the same output, keys in the same order
 * (`tests/unit/json/quick-parse.test.ts` holds it to that on real audit EventLists and their
 * mutations).
 *
 * Built for the schemas' parts that the hot paths use: objects (stripped, strict or loose), strings
 * with length bounds and patterns, arrays with length bounds, finite and safe-integer numbers with
 * bounds, booleans, literals and enums, optional, nullable, unknown, string-keyed records,
 * discriminated unions and refinements. A schema with any other part (a transform, a default, a
 * format, a plain union) gets no quick parser.
 */
export const NOT_QUICK: unique symbol = Symbol('not quick');

type QuickParse = (input: unknown) => unknown;

// the parses of any string and of any value: an object's field of either is read without a call
const anyString: QuickParse = (input) => (typeof input === 'string' ? input : NOT_QUICK);
const anyValue: QuickParse = (input) => input;

/** The schema's quick parser, or undefined when the schema has a part it cannot follow. */
export function quickParser<S extends z.ZodType>(
  schema: S,
): ((input: unknown) => z.output<S> | typeof NOT_QUICK) | undefined {
  return compile(schema as unknown as Schema) as
    | ((input: unknown) => z.output<S> | typeof NOT_QUICK)
    | undefined;
}

/** `schema.safeParse`, answered by the quick parser when it accepts the input. */
export function quickSafeParse<S extends z.ZodType>(
  schema: S,
): (input: unknown) => z.ZodSafeParseResult<z.output<S>> {
  const quick = quickParser(schema);
  if (!quick) return (input) => schema.safeParse(input);
  return (input) => {
    const data = quick(input);
    return data === NOT_QUICK ? schema.safeParse(input) : { success: true, data };
  };
}

/** `schema.parse`, answered by the quick parser when it accepts the input; zod's error otherwise. */
export function quickParse<S extends z.ZodType>(schema: S): (input: unknown) => z.output<S> {
  const parse = quickSafeParse(schema);
  return (input) => {
    const parsed = parse(input);
    if (parsed.success) return parsed.data;
    throw parsed.error;
  };
}

/** The parts of zod's core definitions read here (`zod/v4/core`, the library authors' API). */
interface Schema {
  _zod: {
    def: {
      type: string;
      checks?: Check[];
      coerce?: boolean;
      format?: string;
      shape?: Record<string, Schema>;
      catchall?: Schema;
      element?: Schema;
      innerType?: Schema;
      keyType?: Schema;
      valueType?: Schema;
      mode?: string;
      partial?: boolean;
      discriminator?: string;
      options?: Schema[];
      unionFallback?: boolean;
    };
    values?: Set<unknown>;
  };
}

interface Check {
  _zod: {
    def: {
      check: string;
      type?: string;
      fn?: (value: unknown) => unknown;
      minimum?: number;
      maximum?: number;
      value?: unknown;
      inclusive?: boolean;
      format?: string;
      pattern?: RegExp;
    };
    check(payload: { value: unknown; issues: unknown[] }): unknown;
  };
}

/** A check on a value already of its type: true when the value passes it for certain. */
type CheckPasses = (value: never) => boolean;

function compile(schema: Schema): QuickParse | undefined {
  const def = schema._zod.def;
  switch (def.type) {
    case 'string':
      return def.coerce || def.format !== undefined ? undefined : typed('string', def.checks);
    case 'number':
      return def.coerce || def.format !== undefined ? undefined : typed('number', def.checks);
    case 'literal':
    case 'enum':
      return def.checks?.length ? undefined : member(schema._zod.values);
    case 'unknown':
      return def.checks?.length ? undefined : anyValue;
    case 'optional':
      return wrapped(def, undefined);
    case 'nullable':
      return wrapped(def, null);
    case 'array':
      return def.element ? array(def.element, def.checks) : undefined;
    case 'boolean':
      return def.coerce || def.checks?.length
        ? undefined
        : (input) => (typeof input === 'boolean' ? input : NOT_QUICK);
    case 'record':
      return def.mode === 'loose' || def.partial || !def.keyType || !def.valueType || def.checks?.length
        ? undefined
        : record(def.keyType, def.valueType);
    case 'object':
      return def.shape ? object(def.shape, def.catchall, def.checks) : undefined;
    case 'union':
      return def.discriminator !== undefined && def.options && !def.checks?.length && !def.unionFallback
        ? discriminated(def.discriminator, def.options)
        : undefined;
    default:
      return undefined;
  }
}

/**
 * A discriminated union: the option the discriminator's value names parses, as in zod; an option
 * with a part the quick parser cannot follow leaves its inputs to zod, the others stay quick.
 */
function discriminated(discriminator: string, options: Schema[]): QuickParse | undefined {
  const byValue = new Map<unknown, QuickParse>();
  for (const option of options) {
    const values = option._zod.def.shape?.[discriminator]?._zod.values;
    if (option._zod.def.type !== 'object' || !values) return undefined;
    const parse = compile(option) ?? (() => NOT_QUICK);
    for (const value of values) {
      if (value === undefined || byValue.has(value)) return undefined;
      byValue.set(value, parse);
    }
  }
  return (input) => {
    if (typeof input !== 'object' || input === null) return NOT_QUICK;
    const parse = byValue.get((input as Record<string, unknown>)[discriminator]);
    return parse ? parse(input) : NOT_QUICK;
  };
}

function member(values: Set<unknown> | undefined): QuickParse | undefined {
  if (!values) return undefined;
  return (input) => (values.has(input) ? input : NOT_QUICK);
}

/** `undefined` (optional) or `null` (nullable) as it is, anything else as the inner schema has it. */
function wrapped(def: Schema['_zod']['def'], passes: undefined | null): QuickParse | undefined {
  if (def.checks?.length || !def.innerType) return undefined;
  const inner = compile(def.innerType);
  return inner && ((input) => (input === passes ? input : inner(input)));
}

function typed(type: 'string' | 'number', checks: Check[] = []): QuickParse | undefined {
  // bounds as numbers, so a string or number is checked without a call per bound
  let least = -Infinity;
  let most = Infinity;
  let above = -Infinity;
  let below = Infinity;
  let safeInteger = false;
  const refinements: CheckPasses[] = [];
  for (const check of checks) {
    const { check: kind, minimum, maximum, value: bound, inclusive, format, pattern } = check._zod.def;
    if (type === 'string' && kind === 'max_length' && maximum !== undefined) most = Math.min(most, maximum);
    // `.regex(pattern)`: tested as zod tests it, from the start of the text
    else if (type === 'string' && kind === 'string_format' && format === 'regex' && pattern instanceof RegExp)
      refinements.push((value: string) => {
        pattern.lastIndex = 0;
        return pattern.test(value);
      });
    // zod counts code points in a string of fewer units than twice its minimum: left to zod
    else if (type === 'string' && kind === 'min_length' && minimum !== undefined)
      least = Math.max(least, minimum * 2);
    else if (type === 'number' && kind === 'number_format' && format === 'safeint') safeInteger = true;
    else if (type === 'number' && typeof bound === 'number' && kind === 'greater_than') {
      if (inclusive) least = Math.max(least, bound);
      else above = Math.max(above, bound);
    } else if (type === 'number' && typeof bound === 'number' && kind === 'less_than') {
      if (inclusive) most = Math.min(most, bound);
      else below = Math.min(below, bound);
    } else {
      const refinement = customCheck(check);
      if (!refinement) return undefined;
      refinements.push(refinement);
    }
  }
  const plain =
    type === 'string'
      ? (input: unknown) => typeof input === 'string' && input.length >= least && input.length <= most
      : (input: unknown) =>
          typeof input === 'number' &&
          Number.isFinite(input) &&
          input >= least &&
          input <= most &&
          input > above &&
          input < below &&
          (!safeInteger || Number.isSafeInteger(input));
  if (refinements.length === 0 && type === 'string' && least === -Infinity && most === Infinity)
    return anyString;
  if (refinements.length === 0) return (input) => (plain(input) ? input : NOT_QUICK);
  return (input) => (plain(input) && refinements.every((pass) => pass(input as never)) ? input : NOT_QUICK);
}

/** A refinement runs as zod runs it, on a payload of its own: it passes when it reports nothing. */
function customCheck(check: Check): CheckPasses | undefined {
  const { check: kind, type, fn } = check._zod.def;
  if (kind !== 'custom') return undefined;
  // `.refine(fn)`: zod's check reports an issue exactly when `fn` answers falsy
  if (type === 'custom' && typeof fn === 'function')
    return (value: unknown) => {
      const passed = fn(value);
      return !(passed instanceof Promise) && Boolean(passed);
    };
  return (value: unknown) => {
    const payload = { value, issues: [] };
    const result = check._zod.check(payload);
    return !(result instanceof Promise) && payload.issues.length === 0;
  };
}

function array(element: Schema, checks: Check[] = []): QuickParse | undefined {
  const item = compile(element);
  if (!item) return undefined;
  // an array's length is its count of items, as zod counts it
  let least = 0;
  let most = Infinity;
  for (const check of checks) {
    const { check: kind, minimum, maximum } = check._zod.def;
    if (kind === 'min_length' && minimum !== undefined) least = Math.max(least, minimum);
    else if (kind === 'max_length' && maximum !== undefined) most = Math.min(most, maximum);
    else return undefined;
  }
  return (input) => {
    if (!Array.isArray(input) || input.length < least || input.length > most) return NOT_QUICK;
    const output: unknown[] = new Array(input.length);
    for (let index = 0; index < input.length; index++) {
      const value = item(input[index]);
      if (value === NOT_QUICK) return NOT_QUICK;
      output[index] = value;
    }
    return output;
  };
}

/** A record's input as JSON makes them: zod's rules for other prototypes, symbols and `__proto__` are its own. */
function isJsonObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const prototype: unknown = Object.getPrototypeOf(input);
  return (
    (prototype === Object.prototype || prototype === null) &&
    !Object.hasOwn(input, '__proto__') &&
    Object.getOwnPropertySymbols(input).length === 0
  );
}

function record(keyType: Schema, valueType: Schema): QuickParse | undefined {
  const keyDef = keyType._zod.def;
  // any string key: a key schema with checks or values decides which keys belong, left to zod
  if (keyDef.type !== 'string' || keyDef.checks?.length || keyDef.coerce || keyDef.format !== undefined)
    return undefined;
  const value = compile(valueType);
  if (!value) return undefined;
  return (input) => {
    if (!isJsonObject(input)) return NOT_QUICK;
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(input)) {
      const parsed = value(input[key]);
      if (parsed === NOT_QUICK) return NOT_QUICK;
      output[key] = parsed;
    }
    return output;
  };
}

type Field = { key: string; optional: boolean; parse: QuickParse };

function object(
  shape: Record<string, Schema>,
  catchall: Schema | undefined,
  checks: Check[] = [],
): QuickParse | undefined {
  const rest = catchall?._zod.def.type;
  if (rest !== undefined && rest !== 'never' && rest !== 'unknown') return undefined;
  const fields: Field[] = [];
  for (const key of Object.keys(shape)) {
    const { type, innerType, checks: own } = shape[key]!._zod.def;
    // an optional field's undefined is the object's to judge (given or not), a value the inner schema's
    const optional = type === 'optional' && innerType !== undefined && !own?.length;
    const parse = compile(optional ? innerType : shape[key]!);
    if (!parse || key === '__proto__') return undefined;
    fields.push({ key, optional, parse });
  }
  const refinements: CheckPasses[] = [];
  for (const check of checks) {
    const pass = customCheck(check);
    if (!pass) return undefined;
    refinements.push(pass);
  }
  return CAN_GENERATE ? generated(fields, rest, refinements) : undefined;
}

// Node run with --disallow-code-generation-from-strings refuses `new Function`: zod parses then
const CAN_GENERATE = (() => {
  try {
    return typeof new Function('return 1') === 'function';
  } catch {
    return false;
  }
})();

/**
 * The object's parse as code of its own, as zod's own fast path does: each field read by its name,
 * so V8 caches where it lies in the input's shape, where a loop over the names reads each through a
 * lookup by key. The names are the schema's, written as JSON string literals.
 */
function generated(fields: Field[], rest: string | undefined, refinements: CheckPasses[]): QuickParse {
  const lines = [
    "if (typeof input !== 'object' || input === null || Array.isArray(input)) return NOT_QUICK;",
    'const output = {};',
    'let value;',
    'let parsed;',
  ];
  fields.forEach(({ key, optional, parse }, index) => {
    const name = JSON.stringify(key);
    lines.push(`value = input[${name}];`);
    lines.push(
      optional
        ? `if (value === undefined) { if (${name} in input) output[${name}] = undefined; } else {`
        : 'if (value === undefined) return NOT_QUICK; else {',
    );
    if (parse === anyString)
      lines.push(`if (typeof value !== 'string') return NOT_QUICK; output[${name}] = value; }`);
    else if (parse === anyValue) lines.push(`output[${name}] = value; }`);
    else
      lines.push(
        `parsed = parses[${index}](value); if (parsed === NOT_QUICK) return NOT_QUICK; output[${name}] = parsed; }`,
      );
  });
  if (rest !== undefined) {
    lines.push('for (const key in input) {');
    lines.push('if (keys.has(key)) continue;');
    // zod refuses it in a strict object and leaves it out of a loose one
    lines.push(
      rest === 'never'
        ? 'return NOT_QUICK;'
        : "if (key === '__proto__') return NOT_QUICK; output[key] = input[key];",
    );
    lines.push('}');
  }
  lines.push('for (const pass of refinements) if (!pass(output)) return NOT_QUICK;');
  lines.push('return output;');
  const make = new Function(
    'NOT_QUICK',
    'parses',
    'keys',
    'refinements',
    `return (input) => {\n${lines.join('\n')}\n};`,
  );
  return make(
    NOT_QUICK,
    fields.map(({ parse }) => parse),
    new Set(fields.map(({ key }) => key)),
    refinements,
  ) as QuickParse;
}
