import { inspect } from 'node:util';
import { KeyUnreadable } from './key-unreadable';
import { openPgpSignature } from './openpgp-signature';
import { type OpenPgpSigningKey, readOpenPgpSigningKey } from './openpgp-signing-key';
import { readSshSigningKey, type SshSigningKey } from './ssh-signing-key';
import { sshSignature } from './sshsig';

/** How a repository's commits are signed: Git's `gpg.format` values kubescribe writes. */
export type SigningFormat = 'ssh' | 'openpgp';

/** The namespace Git signs and verifies commits in with `gpg.format=ssh`. */
const GIT_NAMESPACE = 'git';

/**
 * Signs commit payloads with one repository's key. The key never leaves this object: it prints as
 * `[signing key]` in logs, JSON and `util.inspect`.
 */
export class CommitSigner {
  readonly #sign: (payload: Buffer, at: number) => string;
  /** The emails the key vouches for (an OpenPGP key's user IDs); none for an SSH key. */
  readonly identities: readonly string[];

  private constructor(sign: (payload: Buffer, at: number) => string, identities: readonly string[]) {
    this.#sign = sign;
    this.identities = identities;
  }

  /**
   * The signer of a key given as text (the OpenSSH private key `ssh-keygen` writes, or the armored
   * export of `gpg --export-secret-keys`). Throws `SigningKeyInvalid` saying what is wrong.
   */
  static of(format: SigningFormat, keyText: string): CommitSigner {
    try {
      if (format === 'ssh') {
        const key: SshSigningKey = readSshSigningKey(keyText);
        return new CommitSigner((payload) => sshSignature(key, GIT_NAMESPACE, payload), []);
      }
      const key: OpenPgpSigningKey = readOpenPgpSigningKey(keyText);
      return new CommitSigner(
        (payload, at) => openPgpSignature(key, payload, at),
        key.userIds.flatMap((id) => /<([^<>]+)>\s*$/.exec(id)?.[1] ?? []),
      );
    } catch (error) {
      // node:crypto's own words about numbers that form no key say nothing useful to an operator
      throw new SigningKeyInvalid(
        error instanceof KeyUnreadable ? error.message : 'is corrupt: its numbers do not form a key',
      );
    }
  }

  /** The armored signature of a commit's bytes made at `at` (Unix seconds: the committer's time). */
  sign(payload: Buffer, at: number): string {
    return this.#sign(payload, at);
  }

  toString(): string {
    return '[signing key]';
  }

  toJSON(): string {
    return '[signing key]';
  }

  [inspect.custom](): string {
    return '[signing key]';
  }
}

/** A signing key kubescribe cannot use; the message completes "the signing key …". */
export class SigningKeyInvalid extends Error {}
