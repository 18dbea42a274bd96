import { wellFormed } from '../json/exact-json';

/**
 * YAML scalars for the emitter. A string is written plain only when both YAML 1.2 and YAML 1.1
 * (still used by kubectl's and Flux's parsers) would read it back as the same string: `yes`, `on`,
 * `3`, `1.10`, `2026-01-01` and `~` are quoted, or a later `kubectl apply` of the file would turn
 * them into booleans, numbers, dates or null.
 */

const PLAIN_SAFE = /^[A-Za-z_/][-A-Za-z0-9 _./:@+=,()]*$/;
const YAML_11_SPECIAL =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|nan|NaN|NAN|inf|Inf|INF)$/;
// Exponent-only numbers such as `E9` or `1e5`: some YAML 1.1 readers take them for floats.
const YAML_11_EXPONENT = /^[-+]?[0-9_]*\.?[0-9_]*[eE][-+]?[0-9]+$/;
// Characters every reader takes as themselves: YAML's printable characters without NEL (U+0085),
// LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029), line breaks to YAML 1.1 (PyYAML, go-yaml)
// but not to 1.2, and without the byte-order mark (U+FEFF), which YAML 1.2 allows only before a
// document (its nb-char excludes it). Anything else is escaped in a double-quoted scalar, and keeps
// text out of a literal block.
const UNAMBIGUOUS =
  '\\x20-\\x7E\\xA0-\\u2027\\u202A-\\uD7FF\\uE000-\\uFEFE\\uFF00-\\uFFFD\\u{10000}-\\u{10FFFF}';
const NEEDS_ESCAPE = new RegExp(`[^${UNAMBIGUOUS}]`, 'gu');
const AMBIGUOUS_IN_BLOCK = new RegExp(`[^\\t${UNAMBIGUOUS}]`, 'u');

/**
 * Whether a string can be written without quotes and still read back as that exact string. Every
 * key and string of every recorded object comes here, so only the rules a string can break are
 * tried: a YAML 1.1 word has at most 5 letters, an exponent-only number that `PLAIN_SAFE` lets
 * through starts with `e`, `E` or `_`, and `PLAIN_SAFE` admits no `#` (so no comment).
 */
export function isPlainSafe(text: string): boolean {
  if (!PLAIN_SAFE.test(text) || text.endsWith(':') || text.endsWith(' ') || text.includes(': ')) return false;
  if (text.length <= 5 && YAML_11_SPECIAL.test(text)) return false;
  const first = text.charCodeAt(0);
  return !((first === 0x65 || first === 0x45 || first === 0x5f) && YAML_11_EXPONENT.test(text));
}

/**
 * A double-quoted scalar: JSON's string syntax is valid YAML; anything non-printable or read
 * differently by YAML 1.1 and 1.2 (NEL, LS, PS, BOM) is escaped too. A lone surrogate is written
 * U+FFFD, as the apiserver and UTF-8 hold it (go-yaml and libyaml refuse its escape).
 */
export function doubleQuoted(text: string): string {
  return JSON.stringify(wellFormed(text)).replace(NEEDS_ESCAPE, (char) => {
    const code = char.codePointAt(0) as number;
    return code > 0xffff
      ? `\\U${code.toString(16).padStart(8, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A literal block (`|`) for multi-line text, or undefined when the text cannot be written as one
 * exactly (leading spaces, whitespace-only lines, control characters, NEL, LS, PS, BOM): the
 * caller quotes it instead.
 * @returns the header (`|`, `|-` or `|+`) and the content lines, unindented.
 */
export function literalBlock(text: string): { header: string; lines: string[] } | undefined {
  if (!text.includes('\n')) return undefined;
  const chomp = !text.endsWith('\n') ? '-' : text.endsWith('\n\n') ? '+' : '';
  const body = chomp === '-' ? text : text.slice(0, -1);
  const lines = body.split('\n');
  const fits = lines.every(
    (line) => line === '' || (!/^[ \t]/.test(line) && !/^\s+$/.test(line) && !AMBIGUOUS_IN_BLOCK.test(line)),
  );
  if (!fits || !lines.some((line) => line !== '')) return undefined;
  return { header: `|${chomp}`, lines };
}
