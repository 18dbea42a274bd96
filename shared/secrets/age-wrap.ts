import {
  createCipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  type KeyObject,
} from 'node:crypto';
import { ageRecipientKey } from './age-recipient';

// A JWK is imported an order of magnitude faster than PKCS #8 DER (OpenSSL 3's decoders): 0.25 ms,
// not 1.8 ms, per ephemeral key. Node takes the key from `d` and requires an `x` it does not use
// (the share below is exported from the imported key, so it is always the key's own).
const UNUSED_X = Buffer.alloc(32).toString('base64url');
// Recipients' public keys, imported once: a target has a few, used for every Secret.
const recipientKeys = new Map<string, KeyObject>();
const MAX_CHUNK_BYTES = 64 * 1024;

const raw64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
const hkdf = (ikm: Buffer, salt: Buffer, info: string) =>
  Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));

function chacha20Poly1305(key: Buffer, nonce: Buffer, plaintext: Buffer): Buffer {
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/**
 * Encrypts `plaintext` (at most 64 KiB: a SOPS data key is 32 bytes) to one age X25519 recipient as
 * an armored age file (age-encryption.org/v1), as `sops` stores a data key. The file key, the
 * ephemeral key and the payload nonce are derived from `seed` and the recipient instead of drawn at
 * random, so the same seed gives the same bytes (an unchanged Secret stays the same file): the seed
 * must be secret and unique to the plaintext, or age's guarantees do not hold.
 */
export function ageEncryptArmored({
  recipient,
  plaintext,
  seed,
}: {
  recipient: string;
  plaintext: Buffer;
  seed: Buffer;
}): string {
  const recipientKey = ageRecipientKey(recipient);
  if (!recipientKey) throw new TypeError('ageEncryptArmored: the recipient is not an age X25519 public key');
  if (plaintext.length > MAX_CHUNK_BYTES) throw new RangeError('ageEncryptArmored: more than one chunk');
  const derive = (label: string) => createHmac('sha256', seed).update(`${label}\0${recipient}`).digest();

  const fileKey = derive('age file key').subarray(0, 16);
  const ephemeral = createPrivateKey({
    key: { kty: 'OKP', crv: 'X25519', d: derive('age ephemeral key').toString('base64url'), x: UNUSED_X },
    format: 'jwk',
  });
  const share = Buffer.from(createPublicKey(ephemeral).export({ format: 'jwk' }).x ?? '', 'base64url');
  let publicKey = recipientKeys.get(recipient);
  if (!publicKey) {
    publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: recipientKey.toString('base64url') },
      format: 'jwk',
    });
    if (recipientKeys.size >= 64) recipientKeys.clear();
    recipientKeys.set(recipient, publicKey);
  }
  const shared = diffieHellman({ privateKey: ephemeral, publicKey });
  if (shared.every((byte) => byte === 0)) throw new TypeError('ageEncryptArmored: a low-order recipient key');
  const wrapKey = hkdf(shared, Buffer.concat([share, recipientKey]), 'age-encryption.org/v1/X25519');
  const body = chacha20Poly1305(wrapKey, Buffer.alloc(12), fileKey);

  const header = `age-encryption.org/v1\n-> X25519 ${raw64(share)}\n${raw64(body)}\n---`;
  const headerMac = createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
    .update(header)
    .digest();
  const nonce = derive('age payload nonce').subarray(0, 16);
  const lastChunk = Buffer.alloc(12);
  lastChunk[11] = 1;
  const payload = chacha20Poly1305(hkdf(fileKey, nonce, 'payload'), lastChunk, plaintext);

  const file = Buffer.concat([Buffer.from(`${header} ${raw64(headerMac)}\n`), nonce, payload]);
  const lines = file.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN AGE ENCRYPTED FILE-----\n${lines.join('\n')}\n-----END AGE ENCRYPTED FILE-----\n`;
}
