/**
 * Payload references as pending writes store them: the payload store's `sha256:<64 hex>` (most of a
 * one-change write) as 43 base64url characters, any other reference verbatim behind `=`, which is
 * never a base64url character.
 */
const SHA256_REF = /^sha256:[0-9a-f]{64}$/;
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

/** `ref` as stored: three hex digits make two base64url characters, the 64th digit the 43rd. */
export function storeRef(ref: string): string {
  if (!SHA256_REF.test(ref)) return `=${ref}`;
  // character codes collected first: concatenating 43 one-character strings costs a rope node each
  const codes: number[] = [];
  for (let i = SHA256_PREFIX; i < ref.length - 1; i += 3) {
    const value = (hexAt(ref, i) << 8) | (hexAt(ref, i + 1) << 4) | hexAt(ref, i + 2);
    codes.push(BASE64URL.charCodeAt(value >> 6), BASE64URL.charCodeAt(value & 63));
  }
  codes.push(BASE64URL.charCodeAt(hexAt(ref, ref.length - 1) << 2));
  return String.fromCharCode(...codes);
}

/** The payload reference a stored one stands for. */
export function expandRef(stored: string): string {
  if (stored.startsWith('=')) return stored.slice(1);
  const codes: number[] = [];
  for (let i = 0; i < stored.length - 1; i += 2) {
    const value = (base64At(stored, i) << 6) | base64At(stored, i + 1);
    codes.push(HEX.charCodeAt(value >> 8), HEX.charCodeAt((value >> 4) & 15), HEX.charCodeAt(value & 15));
  }
  codes.push(HEX.charCodeAt(base64At(stored, stored.length - 1) >> 2));
  return `sha256:${String.fromCharCode(...codes)}`;
}
