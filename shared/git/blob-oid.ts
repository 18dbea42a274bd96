import { createHash } from 'node:crypto';

/** Bytes of a file's content as Git stores them (strings as UTF-8). */
export const contentBytes = (content: string | Uint8Array): Buffer =>
  typeof content === 'string'
    ? Buffer.from(content, 'utf8')
    : Buffer.from(content.buffer, content.byteOffset, content.byteLength);

/**
 * The object id Git gives `content` as a blob. Kept apart from the tree building so that code on
 * the HTTP path (the Secrets key escrow) can name a file without loading isomorphic-git.
 */
export function blobOidOf(content: string | Uint8Array): string {
  const bytes = contentBytes(content);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
