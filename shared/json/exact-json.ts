/**
 * JSON read and written as the apiserver reads it, without changing a number. `JSON.parse` turns
 * every number into a double, so an int64 such as `9223372036854775807` (a Kubernetes field, a
 * CRD's counter) comes back as `9223372036854776000`, and `1e400` as `Infinity`. Here an integer a
 * double cannot hold exactly is read as a `bigint` with every digit kept, and a number beyond a
 * double's range is refused (the apiserver's decoder refuses it too): nothing is rewritten.
 *
 * A lone UTF-16 surrogate (`"\ud800"`) is read as U+FFFD, as the apiserver's decoder (Go's
 * encoding/json) reads it: it is not a Unicode character, UTF-8 (so Git) cannot hold it, and
 * go-yaml refuses it in a file. The cluster never holds one, so neither does its record.
 *
 * Speed: such numbers and escapes are rare, so a document is read by the native `JSON.parse`, and
 * read again by the parser below only when that value holds an integer beyond 2^53 or an infinity
 * (without which no number of the text was rounded or out of range) or its text a surrogate's
 * escape. The numbers are checked on the value, not the text: a walk of its objects and numbers
 * costs a sixth of a regular expression over every character (a body of 400 audit events, 475 KB:
 * 0.065 against 0.39 ms, beside JSON.parse's 1.2 ms); escapes are found with `indexOf`, which skips
 * ahead far faster than a regular expression can (0.004 ms).
 */

/** A number in the text that no JSON reader here can carry: beyond a double's range. */
export class JsonNumberOutOfRange extends SyntaxError {
  constructor(readonly position: number) {
    super(`a number at position ${position} is beyond the range of a 64-bit floating point number`);
    this.name = 'JsonNumberOutOfRange';
  }
}

const LONE_SURROGATE = /\p{Cs}/gu;

/** The string with each lone surrogate replaced by U+FFFD, as Go's decoder and UTF-8 have it. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * Parses JSON as `JSON.parse` does (the same errors for text that is not JSON), except that an
 * integer beyond ±(2^53 - 1) is a `bigint`, a lone surrogate is U+FFFD, and a number beyond a
 * double's range throws {@link JsonNumberOutOfRange}.
 */
export function parseExactJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return holdsRoundedNumber(value) || hasSurrogateEscape(text) ? readExact(text) : value;
}

/**
 * Whether `JSON.parse`'s value holds an integer beyond ±(2^53 - 1) or an infinity. Only then can a
 * number of the text differ from the double read from it: a double holds every integer up to 2^53,
 * and a number with a fraction or an exponent is a double to the exact reader too. A fraction that
 * rounds to such an integer is a false alarm, which costs the exact read, never a miss. Iterative,
 * as JSON.parse is, so no nesting overflows the stack.
 */
function holdsRoundedNumber(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'number') {
      if (!Number.isSafeInteger(next) && (Number.isInteger(next) || !Number.isFinite(next))) return true;
    } else if (Array.isArray(next)) {
      for (let index = 0; index < next.length; index++) {
        const item: unknown = next[index];
        if (typeof item === 'number' || typeof item === 'object') pending.push(item);
      }
    } else if (typeof next === 'object' && next !== null) {
      for (const key in next) {
        const item: unknown = (next as Record<string, unknown>)[key];
        if (typeof item === 'number' || typeof item === 'object') pending.push(item);
      }
    }
  }
  return false;
}

/** Whether JSON text escapes a surrogate (`\uD800`–`\uDFFF`): text decoded from bytes holds no raw one. */
function hasSurrogateEscape(text: string): boolean {
  for (let at = text.indexOf('\\u'); at >= 0; at = text.indexOf('\\u', at + 2)) {
    const code = text.charCodeAt(at + 2) | 0x20;
    const next = text.charCodeAt(at + 3) | 0x20;
    // `d` then `8`, `9` or `a`–`f`, either case. An escaped backslash before `ud800` counts too:
    // a false alarm costs the exact parse, never a miss.
    if (code === 0x64 && (next === 0x38 || next === 0x39 || (next >= 0x61 && next <= 0x66))) return true;
  }
  return false;
}

/**
 * `JSON.stringify`, with a `bigint` written as its digits. Only for values `parseExactJson` gives
 * and plain objects holding them (no replacer, no indentation).
 */
export function stringifyExactJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    // V8 refuses a bigint with "Do not know how to serialize a BigInt"; anything else it refuses
    // (a circular structure) stays refused.
    if (!(error instanceof TypeError && error.message.includes('BigInt'))) throw error;
    return writeExact(value);
  }
}

function writeExact(value: unknown, ancestors: Set<object> = new Set()): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return writeExact(json.call(value), ancestors);
  if (ancestors.has(value)) throw new TypeError('Converting circular structure to JSON');
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) text = `[${value.map((item) => writeExact(item, ancestors)).join(',')}]`;
  else {
    const members: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      members.push(`${JSON.stringify(key)}:${writeExact(item, ancestors)}`);
    }
    text = `{${members.join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}

type Open = { container: unknown[] } | { container: Record<string, unknown>; key: string | undefined };

/**
 * Reads text already known to be JSON (`JSON.parse` accepted it), without recursion so no nesting
 * can overflow the stack. Strings without escapes are sliced; strings with escapes are read by
 * `JSON.parse`, which knows every escape; keys made equal by U+FFFD keep the last value, as in Go.
 */
function readExact(text: string): unknown {
  const stack: Open[] = [];
  let at = 0;
  let result: unknown;
  const skipSpace = () => {
    for (;;) {
      const code = text.charCodeAt(at);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      at++;
    }
  };
  const readString = (): string => {
    const start = at;
    let escaped = false;
    at++;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === 0x22) break;
      if (code === 0x5c) {
        escaped = true;
        at++;
      }
      at++;
    }
    at++;
    return wellFormed(
      escaped ? (JSON.parse(text.slice(start, at)) as string) : text.slice(start + 1, at - 1),
    );
  };
  const place = (value: unknown): void => {
    const top = stack[stack.length - 1];
    if (top === undefined) result = value;
    else if (Array.isArray(top.container)) top.container.push(value);
    else if ('key' in top && top.key !== undefined) {
      // `__proto__` is an ordinary key in JSON, as JSON.parse keeps it: never the object's prototype.
      if (top.key === '__proto__')
        Object.defineProperty(top.container, top.key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else top.container[top.key] = value;
      top.key = undefined;
    }
  };
  for (;;) {
    skipSpace();
    if (at >= text.length) return result;
    const code = text.charCodeAt(at);
    const top = stack[stack.length - 1];
    if (code === 0x2c /* , */) {
      at++;
      continue;
    }
    if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      at++;
      const closed = stack.pop() as Open;
      place(closed.container);
      continue;
    }
    if (code === 0x22 /* " */) {
      const string = readString();
      if (top !== undefined && !Array.isArray(top.container) && 'key' in top && top.key === undefined) {
        top.key = string;
        skipSpace();
        at++; // the colon
      } else place(string);
      continue;
    }
    if (code === 0x5b /* [ */) {
      at++;
      stack.push({ container: [] });
      continue;
    }
    if (code === 0x7b /* { */) {
      at++;
      stack.push({ container: {}, key: undefined });
      continue;
    }
    if (code === 0x74 /* t */) {
      at += 4;
      place(true);
    } else if (code === 0x66 /* f */) {
      at += 5;
      place(false);
    } else if (code === 0x6e /* n */) {
      at += 4;
      place(null);
    } else place(readNumber());
  }

  function readNumber(): number | bigint {
    const start = at;
    let integer = true;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === 0x2e || code === 0x65 || code === 0x45) integer = false;
      else if (!(code === 0x2d || code === 0x2b || (code >= 0x30 && code <= 0x39))) break;
      at++;
    }
    const token = text.slice(start, at);
    const value = Number(token);
    if (!Number.isFinite(value)) throw new JsonNumberOutOfRange(start);
    return integer && !Number.isSafeInteger(value) ? BigInt(token) : value;
  }
}
