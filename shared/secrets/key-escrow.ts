import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';

/**
 * The data key of every SOPS file kubescribe writes is kept, wrapped, beside what it holds: in the
 * held payload (a comment line after the document, stripped before Git) and, once published, in
 * the key escrow under the digest of the file's bytes. The wrapping key derives from the target's
 * derivation key, which only the configuration holds: the storage alone unwraps nothing. It lets a
 * recipient change re-wrap held and published files for the new recipients, as `sops updatekeys`
 * would, without a private key and without plaintext at rest (docs/secrets.md, "Rotating").
 */
const ESCROW_LINE = /\n# kubescribe-data-key: v1 ([A-Za-z0-9+/]+=*)\n$/;
const ESCROW_VERSION = 'v1';

const wrappingKey = (derivationKey: Buffer) =>
  createHmac('sha256', derivationKey).update('kubescribe data key escrow').digest();

/**
 * The data key wrapped (AES-256-GCM) under the target's wrapping key. The IV derives from the data
 * key, so the same file always gives the same held payload (an unchanged Secret stores nothing new);
 * every data key is unique to its plaintext, so no IV repeats under two keys.
 */
export function wrapDataKey(dataKey: Buffer, derivationKey: Buffer): string {
  const key = wrappingKey(derivationKey);
  const iv = createHmac('sha256', key).update(dataKey).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`kubescribe data key ${ESCROW_VERSION}`));
  const sealed = Buffer.concat([cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([iv, sealed]).toString('base64');
}

/** The data key, or undefined when the record was wrapped under another target's (or an old) key. */
export function unwrapDataKey(wrapped: string, derivationKey: Buffer): Buffer | undefined {
  const bytes = Buffer.from(wrapped, 'base64');
  if (bytes.length !== 12 + 32 + 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', wrappingKey(derivationKey), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(`kubescribe data key ${ESCROW_VERSION}`));
    decipher.setAuthTag(bytes.subarray(44));
    return Buffer.concat([decipher.update(bytes.subarray(12, 44)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** A held payload: the SOPS document, then its wrapped data key on a comment line. */
export function heldSecret(document: string, wrappedDataKey: string): string {
  return `${document}# kubescribe-data-key: ${ESCROW_VERSION} ${wrappedDataKey}\n`;
}

/**
 * A held payload split into the SOPS document Git gets and its wrapped data key (absent in a
 * payload held by a release before 0.3.0, which publishes as it is).
 */
export function splitHeldSecret(held: string): { document: string; wrappedDataKey?: string } {
  const match = ESCROW_LINE.exec(held);
  if (!match) return { document: held };
  return { document: held.slice(0, match.index + 1), wrappedDataKey: match[1]! };
}

/** An escrow record: the published file (ciphertext only) and its wrapped data key. */
export function escrowRecord(file: string, wrappedDataKey: string): string {
  return `${ESCROW_VERSION} ${wrappedDataKey}\n${file}`;
}

export function readEscrowRecord(record: string): { file: string; wrappedDataKey: string } | undefined {
  const match = /^v1 ([A-Za-z0-9+/]+=*)\n/.exec(record);
  if (!match) return undefined;
  return { file: record.slice(match[0].length), wrappedDataKey: match[1]! };
}
