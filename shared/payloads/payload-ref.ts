import { createHash } from 'node:crypto';
import { PayloadCorrupt, PayloadRefInvalid } from './errors';

/** A content address: `sha256:` and the lowercase hex SHA-256 of the payload's bytes. */
export type PayloadRef = `sha256:${string}`;

const REF = /^sha256:([0-9a-f]{64})$/;

/** The reference of these bytes. */
export function payloadRefOf(bytes: Uint8Array): PayloadRef {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The hex digest inside a reference; throws `PayloadRefInvalid` for anything else (so it is safe in a path). */
export function digestOf(ref: string): string {
  const match = REF.exec(ref);
  if (!match) throw new PayloadRefInvalid(ref);
  return match[1] as string;
}

/** Returns the bytes if they hash to `ref`, else throws `PayloadCorrupt`. */
export function verifiedPayload(ref: PayloadRef, bytes: Uint8Array): Uint8Array {
  const actual = payloadRefOf(bytes);
  if (actual !== ref) throw new PayloadCorrupt(ref, actual);
  return bytes;
}

/** Bytes of a payload given as bytes or UTF-8 text. */
export function payloadBytes(payload: Uint8Array | string): Uint8Array {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
}
