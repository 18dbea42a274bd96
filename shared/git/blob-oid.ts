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
const oneShot: ((algorithm: string, data: Buffer | string) => string) | undefined =
  typeof crypto.hash === 'function' ? crypto.hash : undefined;

type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** What Git hashes before an object's bytes: `<type> <size>\0`. */
export const objectHeader = (type: ObjectType, size: number): string => `${type} ${size}\0`;

/** The object id of an object's bytes already behind their header (`objectHeader`). */
export function framedOidOf(framed: Uint8Array): string {
  return oneShot ? oneShot('sha1', framed as Buffer) : crypto.createHash('sha1').update(framed).digest('hex');
}

/** The object id Git gives `bytes` as an object of `type`: SHA-1 of `<type> <size>\0` and the bytes. */
export function objectOidOf(type: ObjectType, bytes: Uint8Array): string {
  const header = objectHeader(type, bytes.byteLength);
  if (oneShot && bytes.byteLength <= ONE_SHOT_BYTES) {
    const framed = Buffer.allocUnsafe(header.length + bytes.byteLength);
    framed.write(header, 0, 'latin1');
    framed.set(bytes, header.length);
    return oneShot('sha1', framed);
  }
  return crypto.createHash('sha1').update(header).update(bytes).digest('hex');
}

/**
 * The object id Git gives `content` as a blob. Kept apart from the tree building so that code on
 * the HTTP path (the Secrets key escrow) can name a file without loading isomorphic-git.
 */
export function blobOidOf(content: string | Uint8Array): string {
  // a text is hashed as one string behind its header: encoded once, inside the hash, never copied
  // into a buffer here (a resync hashes every file of a cluster to find the few that changed)
  if (typeof content === 'string' && oneShot && content.length <= ONE_SHOT_BYTES)
    return oneShot('sha1', `blob ${Buffer.byteLength(content, 'utf8')}\0${content}`);
  return objectOidOf('blob', contentBytes(content));
}
