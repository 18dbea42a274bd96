import { createPrivateKey, type KeyObject } from 'node:crypto';
import { KeyUnreadable } from './key-unreadable';

const b64url = (value: bigint): string => {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Buffer.from(hex, 'hex').toString('base64url');
};
const bigintOf = (bytes: Buffer): bigint => (bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`));

function inverse(value: bigint, modulus: bigint): bigint {
  let [a, b, x, y] = [value % modulus, modulus, 1n, 0n];
  while (b !== 0n) {
    const q = a / b;
    [a, b] = [b, a - q * b];
    [x, y] = [y, x - q * y];
  }
  return ((x % modulus) + modulus) % modulus;
}

/**
 * An RSA private key from its numbers (big-endian magnitudes), as SSH and OpenPGP keys carry them:
 * node:crypto takes it as a JWK, whose CRT values are derived here.
 */
export function rsaPrivateKey(numbers: { n: Buffer; e: Buffer; d: Buffer; p: Buffer; q: Buffer }): KeyObject {
  const [n, e, d, p, q] = [numbers.n, numbers.e, numbers.d, numbers.p, numbers.q].map(bigintOf) as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  if (p * q !== n) throw new KeyUnreadable('is an inconsistent RSA key (p·q ≠ n)');
  return createPrivateKey({
    key: {
      kty: 'RSA',
      n: b64url(n),
      e: b64url(e),
      d: b64url(d),
      p: b64url(p),
      q: b64url(q),
      dp: b64url(d % (p - 1n)),
      dq: b64url(d % (q - 1n)),
      qi: b64url(inverse(q, p)),
    },
    format: 'jwk',
  });
}
