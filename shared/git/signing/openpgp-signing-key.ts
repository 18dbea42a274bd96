import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { KeyUnreadable } from './key-unreadable';
import { dearmor, PacketReader, readPackets } from './openpgp-packets';
import { rsaPrivateKey } from './rsa-jwk';

/** Public-key algorithm ids (RFC 9580 §9.1): RSA, and the EdDSA of GnuPG's Ed25519 keys. */
export const RSA = 1;
export const EDDSA_LEGACY = 22;
/** The curve OID of Ed25519Legacy (RFC 9580 §9.2). */
const ED25519_OID = Buffer.from('2b06010401da470f01', 'hex');
const SECRET_KEY = 5;
const PUBLIC_KEY = 6;
const USER_ID = 13;

/** An OpenPGP primary key that signs: its private key, what a signature names it by, its identities. */
export type OpenPgpSigningKey = {
  algorithm: typeof RSA | typeof EDDSA_LEGACY;
  privateKey: KeyObject;
  /** The v4 fingerprint (20 bytes); its last 8 are the key id. */
  fingerprint: Buffer;
  /** When the key was made (Unix seconds): a signature never predates it. */
  createdAt: number;
  /** The key's user IDs, such as `Name <email>`. */
  userIds: string[];
};

/**
 * Reads the primary key of an armored secret key export (`gpg --armor --export-secret-keys`),
 * unprotected, Ed25519 (GnuPG's default) or RSA. Throws `KeyUnreadable` saying what is wrong,
 * never quoting the key.
 */
export function readOpenPgpSigningKey(text: string): OpenPgpSigningKey {
  const bytes = dearmor('PRIVATE KEY BLOCK', text);
  if (!bytes)
    throw new KeyUnreadable('is not an armored OpenPGP secret key (gpg --armor --export-secret-keys)');
  const packets = readPackets(bytes);
  const primary = packets[0];
  if (primary?.tag !== SECRET_KEY) throw new KeyUnreadable('does not start with a secret primary key');
  const reader = new PacketReader(primary.body);
  if (reader.octet() !== 4) throw new KeyUnreadable('is not a version 4 key (what GnuPG makes)');
  const createdAt = reader.bytes(4).readUInt32BE();
  const algorithm = reader.octet();
  if (algorithm === RSA) {
    const n = reader.mpi();
    const e = reader.mpi();
    const publicEnd = reader.offset;
    unprotected(reader);
    const d = reader.mpi();
    const p = reader.mpi();
    const q = reader.mpi();
    const privateKey = rsaPrivateKey({ n, e, d, p, q });
    if ((privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw new KeyUnreadable('is an RSA key under 2048 bits, which hosts refuse to verify');
    return keyOf(RSA, privateKey, primary.body.subarray(0, publicEnd), createdAt, packets);
  }
  if (algorithm === EDDSA_LEGACY) {
    const oid = reader.bytes(reader.octet());
    if (!oid.equals(ED25519_OID)) throw new KeyUnreadable('is an EdDSA key on a curve other than Ed25519');
    const point = reader.mpi();
    const publicEnd = reader.offset;
    unprotected(reader);
    const seed = leftPad(reader.mpi(), 32);
    const privateKey = createPrivateKey({
      // the public point is 0x40 followed by the 32-byte key
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        d: seed.toString('base64url'),
        x: point.subarray(1).toString('base64url'),
      },
      format: 'jwk',
    });
    return keyOf(EDDSA_LEGACY, privateKey, primary.body.subarray(0, publicEnd), createdAt, packets);
  }
  throw new KeyUnreadable(
    `has a primary key of algorithm ${algorithm}: kubescribe signs with Ed25519 or RSA keys`,
  );
}

function unprotected(reader: PacketReader): void {
  if (reader.octet() !== 0)
    throw new KeyUnreadable(
      'is protected by a passphrase: kubescribe signs unattended, so export the key without one',
    );
}

function leftPad(bytes: Buffer, length: number): Buffer {
  return bytes.length >= length ? bytes : Buffer.concat([Buffer.alloc(length - bytes.length), bytes]);
}

function keyOf(
  algorithm: OpenPgpSigningKey['algorithm'],
  privateKey: KeyObject,
  publicPart: Buffer,
  createdAt: number,
  packets: { tag: number; body: Buffer }[],
): OpenPgpSigningKey {
  // RFC 9580 §5.5.4.2: a v4 fingerprint is SHA-1 over 0x99, the two-octet length and the public key
  const length = Buffer.of(publicPart.length >> 8, publicPart.length & 0xff);
  const fingerprint = createHash('sha1').update(Buffer.of(0x99)).update(length).update(publicPart).digest();
  // the primary key's user IDs: those before the next primary key of an export holding several
  const next = packets.findIndex((p, index) => index > 0 && (p.tag === SECRET_KEY || p.tag === PUBLIC_KEY));
  const userIds = packets
    .slice(1, next < 0 ? undefined : next)
    .filter((p) => p.tag === USER_ID)
    .map((p) => p.body.toString('utf8'));
  return { algorithm, privateKey, fingerprint, createdAt, userIds };
}
