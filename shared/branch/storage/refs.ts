/**
 * Payload references as pending writes store them: the payload store's `sha256:<64 hex>` (most of a
 * one-change write) as 43 base64url characters, and an item of a stored batch, `sha256:<64 hex>#<n>`,
 * as those characters and `#<n>`. The item after its predecessor in the same batch (a window of one
 * request's changes) is `+`. Any other reference is kept verbatim behind `=`. Neither `+`, `#` nor
 * `=` is a base64url character.
 */
const SHA256_REF = /^sha256:[0-9a-f]{64}$/;
const BATCH_ITEM = /^(sha256:[0-9a-f]{64})#(0|[1-9]\d{0,8})$/;
const NEXT_ITEM = '+';
const SHA256_PREFIX = 'sha256:'.length;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const HEX = '0123456789abcdef';

function digitValues(digits: string): Int8Array {
  const values = new Int8Array(128).fill(-1);
  for (let i = 0; i < digits.length; i++) values[digits.charCodeAt(i)] = i;
  return values;
}
const HEX_VALUE = digitValues(HEX);
const BASE64URL_VALUE = digitValues(BASE64URL);

function hexAt(text: string, index: number): number {
  return HEX_VALUE[text.charCodeAt(index)]!;
}

function base64At(text: string, index: number): number {
  return BASE64URL_VALUE[text.charCodeAt(index)]!;
}

/** `ref` as stored, `previous` being the reference stored just before it in the same write. */
export function storeRef(ref: string, previous?: string): string {
  const item = BATCH_ITEM.exec(ref);
  if (item) {
    const before = previous === undefined ? null : BATCH_ITEM.exec(previous);
    if (before && before[1] === item[1] && Number(before[2]) + 1 === Number(item[2])) return NEXT_ITEM;
    return `${storeDigest(item[1]!)}#${item[2]}`;
  }
  if (!SHA256_REF.test(ref)) return `=${ref}`;
  return storeDigest(ref);
}

/** `sha256:<64 hex>` as 43 base64url characters: three hex digits make two, the 64th digit the 43rd. */
function storeDigest(ref: string): string {
  // character codes collected first: concatenating 43 one-character strings costs a rope node each
  const codes: number[] = [];
  for (let i = SHA256_PREFIX; i < ref.length - 1; i += 3) {
    const value = (hexAt(ref, i) << 8) | (hexAt(ref, i + 1) << 4) | hexAt(ref, i + 2);
    codes.push(BASE64URL.charCodeAt(value >> 6), BASE64URL.charCodeAt(value & 63));
  }
  codes.push(BASE64URL.charCodeAt(hexAt(ref, ref.length - 1) << 2));
  return String.fromCharCode(...codes);
}

/** The payload reference a stored one stands for, `previous` being the one expanded just before it. */
export function expandRef(stored: string, previous?: string): string {
  if (stored === NEXT_ITEM) {
    const item = previous === undefined ? null : BATCH_ITEM.exec(previous);
    if (!item) throw new Error('a stored payload reference "+" follows no batch item');
    return `${item[1]}#${Number(item[2]) + 1}`;
  }
  if (stored.startsWith('=')) return stored.slice(1);
  const hash = stored.indexOf('#');
  if (hash >= 0) return `${expandDigest(stored.slice(0, hash))}${stored.slice(hash)}`;
  return expandDigest(stored);
}

function expandDigest(stored: string): string {
  const codes: number[] = [];
  for (let i = 0; i < stored.length - 1; i += 2) {
    const value = (base64At(stored, i) << 6) | base64At(stored, i + 1);
    codes.push(HEX.charCodeAt(value >> 8), HEX.charCodeAt((value >> 4) & 15), HEX.charCodeAt(value & 15));
  }
  codes.push(HEX.charCodeAt(base64At(stored, stored.length - 1) >> 2));
  return `sha256:${String.fromCharCode(...codes)}`;
}
