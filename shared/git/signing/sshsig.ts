import { createHash, sign } from 'node:crypto';
import type { SshSigningKey } from './ssh-signing-key';
import { sshString } from './ssh-wire';

/** openssh's PROTOCOL.sshsig: the magic preamble and the only version. */
const MAGIC = Buffer.from('SSHSIG');
const VERSION = 1;
const HASH = 'sha512';

/**
 * An armored SSH signature (`-----BEGIN SSH SIGNATURE-----`) of `message` in `namespace`, as
 * `ssh-keygen -Y sign -n <namespace>` makes it: what `git verify-commit` checks with
 * `gpg.format=ssh` (namespace `git`). Ed25519 and RSA PKCS#1 v1.5 signatures are deterministic, so
 * the same message gives the same signature.
 */
export function sshSignature(key: SshSigningKey, namespace: string, message: Buffer): string {
  const digest = createHash(HASH).update(message).digest();
  const signed = Buffer.concat([
    MAGIC,
    sshString(namespace),
    sshString(''),
    sshString(HASH),
    sshString(digest),
  ]);
  const blob =
    key.kind === 'ssh-ed25519'
      ? Buffer.concat([sshString('ssh-ed25519'), sshString(sign(null, signed, key.privateKey))])
      : Buffer.concat([sshString('rsa-sha2-512'), sshString(sign('sha512', signed, key.privateKey))]);
  const version = Buffer.alloc(4);
  version.writeUInt32BE(VERSION);
  const signature = Buffer.concat([
    MAGIC,
    version,
    sshString(key.publicBlob),
    sshString(namespace),
    sshString(''),
    sshString(HASH),
    sshString(blob),
  ]);
  // ssh-keygen wraps at 70 columns
  const lines = signature.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN SSH SIGNATURE-----\n${lines.join('\n')}\n-----END SSH SIGNATURE-----\n`;
}
