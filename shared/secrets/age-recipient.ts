const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    GENERATORS.forEach((generator, bit) => {
      if ((top >>> bit) & 1) checksum ^= generator;
    });
  }
  return checksum;
}

const expandPrefix = (prefix: string) => [
  ...[...prefix].map((c) => c.charCodeAt(0) >>> 5),
  0,
  ...[...prefix].map((c) => c.charCodeAt(0) & 31),
];

/**
 * The X25519 public key of an age recipient (`age1…`, Bech32 with the `age` prefix, 32 bytes), or
 * undefined when the text is not one: a typo in a recipient would encrypt Secrets for nobody.
 */
export function ageRecipientKey(recipient: string): Buffer | undefined {
  if (!/^age1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}$/.test(recipient)) return undefined;
  const words = [...recipient.slice(4)].map((c) => CHARSET.indexOf(c));
  if (polymod([...expandPrefix('age'), ...words]) !== 1) return undefined;
  // 5-bit words (less the 6 checksum words) to bytes; the padding bits must be zero.
  let accumulator = 0;
  let bits = 0;
  const bytes: number[] = [];
  for (const word of words.slice(0, -6)) {
    accumulator = (accumulator << 5) | word;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >>> bits) & 0xff);
    }
  }
  if (bytes.length !== 32 || (accumulator & ((1 << bits) - 1)) !== 0) return undefined;
  return Buffer.from(bytes);
}

/** Whether the text is an age X25519 recipient (`age1…`, 62 characters, a valid checksum). */
export function isAgeRecipient(recipient: string): boolean {
  return ageRecipientKey(recipient) !== undefined;
}
