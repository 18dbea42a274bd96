const SUFFIX_FACTOR: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)|[eE](\d{1,2}))?$/;

/**
 * Parses a Kubernetes byte quantity (`8Mi`, `512Ki`, `1G`, `1e6`, `1048576`) into a whole number of
 * bytes. Milli/micro suffixes and fractions of a byte are refused, since a byte budget cannot use them.
 * @example parseByteQuantity('8Mi') // { ok: true, bytes: 8388608 }
 */
export function parseByteQuantity(
  text: string,
): { ok: true; bytes: number } | { ok: false; message: string } {
  const match = QUANTITY.exec(text);
  if (!match) return { ok: false, message: 'must be a byte quantity such as "8Mi", "512Ki" or "1048576"' };
  const [, amount, suffix, exponent] = match;
  const factor = exponent === undefined ? (SUFFIX_FACTOR[suffix ?? ''] as number) : 10 ** Number(exponent);
  // Rounding guards against float noise such as 1.1k; a real fraction of a byte stays visible.
  const bytes = Math.round(Number(amount) * factor * 1e6) / 1e6;
  if (!Number.isSafeInteger(bytes)) {
    return { ok: false, message: 'must be a whole number of bytes no larger than 2^53' };
  }
  return { ok: true, bytes };
}
