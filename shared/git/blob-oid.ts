import * as crypto from 'node:crypto';

/** Bytes of a file's content as Git stores them (strings as UTF-8). */
export const contentBytes = (content: string | Uint8Array): Buffer =>
  typeof content === 'string'
    ? Buffer.from(content, 'utf8')
    : Buffer.from(content.buffer, content.byteOffset, content.byteLength);

/** Up to this size an object is hashed framed in one buffer: one copy is cheaper than a Hash object. */
const ONE_SHOT_BYTES = 64 * 1024;
// `crypto.hash` (Node 20.12+): a resync compares every file of a cluster with the tree, and creating a
// Hash object costs more than hashing a small file; earlier 20.x releases take the incremental path
const oneShot: ((algorithm: string, data: Buffer) => string) | undefined =
  typeof crypto.hash === 'function' ? crypto.hash : undefined;

type ObjectType = 'blob' | 'tree' | 'commit';

/** The object id Git gives `bytes` as an object of `type`: SHA-1 of `<type> <size>\0` and the bytes. */
export function objectOidOf(type: ObjectType, bytes: Uint8Array): string {
  const header = `${type} ${bytes.byteLength}\0`;
  if (oneShot && bytes.byteLength <= ONE_SHOT_BYTES) {
    const framed = Buffer.allocUnsafe(header.length + bytes.byteLength);
    framed.write(header, 0, 'latin1');
    framed.set(bytes, header.length);
    return oneShot('sha1', framed);
  }
  return crypto.createHash('sha1').update(header).update(bytes).digest('hex');
}

/**
 * A file's content as Git stores it and the blob SHA Git names it by. A small text is encoded once,
 * straight behind the object header it is hashed with: a resync hashes every file of a cluster to
 * find the few that changed.
 */
export function hashedBlob(content: string | Uint8Array): { oid: string; bytes: Buffer } {
  if (typeof content !== 'string' || !oneShot || content.length > ONE_SHOT_BYTES) {
    const bytes = contentBytes(content);
    return { oid: objectOidOf('blob', bytes), bytes };
  }
  const size = Buffer.byteLength(content, 'utf8');
  const header = `blob ${size}\0`;
  const framed = Buffer.allocUnsafe(header.length + size);
  framed.write(header, 0, 'latin1');
  framed.write(content, header.length, 'utf8');
  return { oid: oneShot('sha1', framed), bytes: framed.subarray(header.length) };
}

/**
 * The object id Git gives `content` as a blob. Kept apart from the tree building so that code on
 * the HTTP path (the Secrets key escrow) can name a file without loading isomorphic-git.
 */
export function blobOidOf(content: string | Uint8Array): string {
  return hashedBlob(content).oid;
}
