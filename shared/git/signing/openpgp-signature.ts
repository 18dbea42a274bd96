import { createHash, sign } from 'node:crypto';
import { armor, mpi, packet, uint32 } from './openpgp-packets';
import { EDDSA_LEGACY, type OpenPgpSigningKey } from './openpgp-signing-key';

const SIGNATURE_PACKET = 2;
const BINARY_DOCUMENT = 0x00;
const SHA256 = 8;
const CREATION_TIME = 2;
const ISSUER_KEY_ID = 16;
const ISSUER_FINGERPRINT = 33;

const subpacket = (type: number, data: Buffer): Buffer =>
  Buffer.concat([Buffer.of(data.length + 1, type), data]);

/**
 * An armored, detached v4 OpenPGP signature (RFC 9580 §5.2.3) of `message` as a binary document,
 * made at `createdAt` (Unix seconds): what `gpg --detach-sign --armor` makes and `git verify-commit`
 * checks with `gpg.format=openpgp`. Deterministic for a given time.
 */
export function openPgpSignature(key: OpenPgpSigningKey, message: Buffer, createdAt: number): string {
  const hashedSubpackets = Buffer.concat([
    subpacket(CREATION_TIME, uint32(Math.max(createdAt, key.createdAt))),
    subpacket(ISSUER_FINGERPRINT, Buffer.concat([Buffer.of(4), key.fingerprint])),
  ]);
  const hashed = Buffer.concat([
    Buffer.of(
      4,
      BINARY_DOCUMENT,
      key.algorithm,
      SHA256,
      hashedSubpackets.length >> 8,
      hashedSubpackets.length & 0xff,
    ),
    hashedSubpackets,
  ]);
  // the hash covers the document, the hashed part of the packet and a trailer with its length (§5.2.4)
  const signed = Buffer.concat([message, hashed, Buffer.of(4, 0xff), uint32(hashed.length)]);
  const digest = createHash('sha256').update(signed).digest();
  const values =
    key.algorithm === EDDSA_LEGACY
      ? edDsaValues(sign(null, digest, key.privateKey))
      : mpi(sign('sha256', signed, key.privateKey));
  const unhashed = subpacket(ISSUER_KEY_ID, key.fingerprint.subarray(12));
  const body = Buffer.concat([
    hashed,
    Buffer.of(unhashed.length >> 8, unhashed.length & 0xff),
    unhashed,
    digest.subarray(0, 2),
    values,
  ]);
  return armor('SIGNATURE', packet(SIGNATURE_PACKET, body));
}

/** Ed25519Legacy signs the digest; its signature is R and S as two MPIs (RFC 9580 §5.2.3.3). */
function edDsaValues(signature: Buffer): Buffer {
  return Buffer.concat([mpi(signature.subarray(0, 32)), mpi(signature.subarray(32))]);
}
