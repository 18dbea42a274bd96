import { createPrivateKey, type KeyObject } from 'node:crypto';
import { KeyUnreadable } from './key-unreadable';
import { rsaPrivateKey } from './rsa-jwk';
import { SshWireReader, sshMpint, sshString } from './ssh-wire';

/** An SSH signing key: the private key, and the public key blob a signature names it by. */
export type SshSigningKey = {
  kind: 'ssh-ed25519' | 'ssh-rsa';
  privateKey: KeyObject;
  /** The public key in SSH wire form (what `ssh-keygen -y` prints, base64). */
  publicBlob: Buffer;
};

const OPENSSH_ARMOR = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/;
const MAGIC = Buffer.from('openssh-key-v1\0');

/**
 * Reads an SSH private key: the OpenSSH format `ssh-keygen` writes (unencrypted), or a PKCS#8 PEM;
 * Ed25519 or RSA. Throws `KeyUnreadable` saying what is wrong, never quoting the key.
 */
export function readSshSigningKey(text: string): SshSigningKey {
  const armored = OPENSSH_ARMOR.exec(text);
  const privateKey = armored
    ? readOpenSshKey(Buffer.from(armored[1]!.replace(/\s+/g, ''), 'base64'))
    : readPem(text);
  return withPublicBlob(privateKey);
}

function readPem(text: string): KeyObject {
  try {
    return createPrivateKey(text);
  } catch {
    throw new KeyUnreadable(
      'is not an SSH private key (the OpenSSH format ssh-keygen writes, or a PKCS#8 PEM)',
    );
  }
}

/** openssh's PROTOCOL.key: magic, cipher, kdf, kdf options, key count, public keys, private section. */
function readOpenSshKey(bytes: Buffer): KeyObject {
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC))
    throw new KeyUnreadable('is not an OpenSSH private key');
  const reader = new SshWireReader(bytes.subarray(MAGIC.length));
  const cipher = reader.text();
  reader.text(); // kdf name
  reader.string(); // kdf options
  if (cipher !== 'none')
    throw new KeyUnreadable(
      'is protected by a passphrase: kubescribe signs unattended, so give it a key without one (ssh-keygen -N "")',
    );
  if (reader.uint32() !== 1) throw new KeyUnreadable('must hold exactly one key');
  reader.string(); // the public key, repeated in the private section
  const secret = new SshWireReader(reader.string());
  const check = secret.uint32();
  if (secret.uint32() !== check) throw new KeyUnreadable('is corrupt (its check numbers differ)');
  const type = secret.text();
  if (type === 'ssh-ed25519') {
    const publicKey = secret.string();
    const seed = secret.string().subarray(0, 32);
    return createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url'), x: publicKey.toString('base64url') },
      format: 'jwk',
    });
  }
  if (type === 'ssh-rsa') {
    const n = secret.mpint();
    const e = secret.mpint();
    const d = secret.mpint();
    secret.mpint(); // iqmp: derived again from p and q
    const p = secret.mpint();
    const q = secret.mpint();
    return rsaPrivateKey({ n, e, d, p, q });
  }
  throw new KeyUnreadable(`is a ${type} key: kubescribe signs with ssh-ed25519 or ssh-rsa keys`);
}

function withPublicBlob(privateKey: KeyObject): SshSigningKey {
  const jwk = privateKey.export({ format: 'jwk' });
  if (privateKey.asymmetricKeyType === 'ed25519') {
    return {
      kind: 'ssh-ed25519',
      privateKey,
      publicBlob: Buffer.concat([sshString('ssh-ed25519'), sshString(Buffer.from(jwk.x!, 'base64url'))]),
    };
  }
  if (privateKey.asymmetricKeyType === 'rsa') {
    if ((privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw new KeyUnreadable('is an RSA key under 2048 bits, which hosts refuse to verify');
    const e = Buffer.from(jwk.e!, 'base64url');
    const n = Buffer.from(jwk.n!, 'base64url');
    return {
      kind: 'ssh-rsa',
      privateKey,
      publicBlob: Buffer.concat([sshString('ssh-rsa'), sshMpint(e), sshMpint(n)]),
    };
  }
  throw new KeyUnreadable(
    `is a ${privateKey.asymmetricKeyType} key: kubescribe signs with Ed25519 or RSA keys`,
  );
}
