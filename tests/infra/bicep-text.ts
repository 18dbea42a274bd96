/**
 * A small reader of Bicep text, for consistency checks only: it finds top-level declarations
 * (`param`, `var`, `resource`, `output`) and the extent of each, skipping comments and strings.
 * It does not type-check, resolve symbols or evaluate anything: Bicep cannot be compiled here.
 */

/** A `resource` declaration. */
export type BicepResource = {
  symbol: string;
  /** The full resource type, e.g. `Microsoft.Web/sites`. */
  type: string;
  apiVersion: string;
  /** Declared with `= if (...)`. */
  conditional: boolean;
  /** The body's text from `{` to the matching `}`, comments blanked. */
  body: string;
};

/** The declarations of one Bicep file. */
export type BicepFile = {
  params: Map<string, { type: string; decorators: string[] }>;
  vars: Map<string, string>;
  resources: BicepResource[];
  outputs: Map<string, string>;
};

/** Reads the top-level declarations of a Bicep file; throws on text it cannot delimit. */
export function parseBicep(source: string): BicepFile {
  const text = blankComments(source);
  const file: BicepFile = { params: new Map(), vars: new Map(), resources: [], outputs: new Map() };
  let decorators: string[] = [];
  let position = 0;
  while (position < text.length) {
    position = skipSpace(text, position);
    if (position >= text.length) break;
    const rest = text.slice(position);
    const lineNumber = text.slice(0, position).split('\n').length;
    if (rest.startsWith('@')) {
      const end = endOfExpression(text, position, lineNumber);
      decorators.push(text.slice(position, end).trim());
      position = end;
      continue;
    }
    const keyword = /^(targetScope|param|var|resource|output|import|type|func|module|metadata)\b/.exec(
      rest,
    )?.[1];
    if (keyword === undefined)
      throw new Error(`line ${lineNumber}: expected a declaration, found ${rest.slice(0, 30)}`);
    const end = endOfExpression(text, position, lineNumber);
    const statement = text.slice(position, end);
    if (keyword === 'param') {
      const match = /^param\s+(\w+)\s+(\w+)/.exec(statement);
      if (!match) throw new Error(`line ${lineNumber}: unreadable param`);
      file.params.set(match[1]!, { type: match[2]!, decorators });
    } else if (keyword === 'var') {
      const match = /^var\s+(\w+)\s*=\s*([\s\S]*)$/.exec(statement);
      if (!match) throw new Error(`line ${lineNumber}: unreadable var`);
      file.vars.set(match[1]!, match[2]!.trim());
    } else if (keyword === 'output') {
      const match = /^output\s+(\w+)\s+\w+\s*=\s*([\s\S]*)$/.exec(statement);
      if (!match) throw new Error(`line ${lineNumber}: unreadable output`);
      file.outputs.set(match[1]!, match[2]!.trim());
    } else if (keyword === 'resource') {
      file.resources.push(readResource(statement, lineNumber));
    } else if (keyword === 'module') {
      // Modules would hide resources from this reader; the deployment is one file on purpose.
      throw new Error(`line ${lineNumber}: modules are not read by this checker`);
    }
    decorators = [];
    position = end;
  }
  return file;
}

/** The text of a `key: value` property of an object body, first match at any depth. */
export function propertyValues(body: string, key: string): string[] {
  const values: string[] = [];
  const pattern = new RegExp(`(?:^|[\\s{])'?${key}'?\\s*:\\s*`, 'g');
  for (const match of body.matchAll(pattern)) {
    const start = (match.index ?? 0) + match[0].length;
    values.push(body.slice(start, endOfExpression(body, start, 0)).trim());
  }
  return values;
}

function readResource(statement: string, lineNumber: number): BicepResource {
  const match = /^resource\s+(\w+)\s+'([^'@]+)@([^']+)'\s*(existing\s*)?=\s*(if\s*\(|\[|\{)/.exec(statement);
  if (!match) throw new Error(`line ${lineNumber}: unreadable resource declaration`);
  const [, symbol, type, apiVersion, , opener] = match;
  if (!type!.includes('/'))
    throw new Error(`line ${lineNumber}: ${symbol} has a relative type; declare it at top level`);
  if (opener === '[')
    throw new Error(`line ${lineNumber}: ${symbol} is a loop; this checker counts single resources`);
  const open = statement.indexOf('{', match[0].length - 1);
  return {
    symbol: symbol!,
    type: type!,
    apiVersion: apiVersion!,
    conditional: opener!.startsWith('if'),
    body: statement.slice(open),
  };
}

/** Replaces `//` and `/* *\/` comments with spaces, keeping strings and positions intact. */
function blankComments(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    if (text.startsWith("'''", index)) {
      const end = text.indexOf("'''", index + 3);
      if (end < 0) throw new Error('unterminated multi-line string');
      out += text.slice(index, end + 3);
      index = end + 3;
    } else if (text[index] === "'") {
      const end = endOfString(text, index);
      out += text.slice(index, end);
      index = end;
    } else if (text.startsWith('//', index)) {
      const end = text.indexOf('\n', index);
      const stop = end < 0 ? text.length : end;
      out += ' '.repeat(stop - index);
      index = stop;
    } else if (text.startsWith('/*', index)) {
      const end = text.indexOf('*/', index + 2);
      if (end < 0) throw new Error('unterminated comment');
      out += text.slice(index, end + 2).replace(/[^\n]/g, ' ');
      index = end + 2;
    } else {
      out += text[index];
      index += 1;
    }
  }
  return out;
}

function endOfString(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    if (text[index] === '\\') index += 2;
    else if (text[index] === "'") return index + 1;
    else if (text[index] === '\n') break;
    else index += 1;
  }
  throw new Error(`unterminated string at offset ${start}`);
}

/** Where the expression starting at `start` ends: a newline (or the end) outside brackets and strings. */
function endOfExpression(text: string, start: number, lineNumber: number): number {
  const closers: string[] = [];
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  let index = start;
  while (index < text.length) {
    const char = text[index]!;
    if (text.startsWith("'''", index)) {
      index = text.indexOf("'''", index + 3) + 3;
      continue;
    }
    if (char === "'") {
      index = endOfString(text, index);
      continue;
    }
    if (char in pairs) closers.push(pairs[char]!);
    else if (char === ')' || char === ']' || char === '}') {
      if (closers.pop() !== char) throw new Error(`line ${lineNumber}: unbalanced ${char}`);
    } else if (char === '\n' && closers.length === 0) return index;
    index += 1;
  }
  if (closers.length > 0) throw new Error(`line ${lineNumber}: missing ${closers.reverse().join('')}`);
  return index;
}

function skipSpace(text: string, start: number): number {
  let index = start;
  while (index < text.length && /\s/.test(text[index]!)) index += 1;
  return index;
}
