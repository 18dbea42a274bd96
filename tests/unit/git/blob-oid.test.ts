/**
 * A resync names every file of a cluster by its blob SHA to find the few that changed, so the hash
 * takes a faster path for small files (Node's one-shot `crypto.hash` over the header and the text); each path
 * must name a file as the real `git hash-object` does.
 */
import { blobOidOf, objectOidOf } from '../../../shared/git/blob-oid';
import { runGit } from '../../support/git/run-git';

const gitBlobOid = (bytes: Buffer) => runGit({ args: ['hash-object', '--stdin'], input: bytes });

describe('blob SHAs', () => {
  it.each([
    ['an empty file', ''],
    ['a small YAML file', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'],
    ['text beyond ASCII', 'name: café ☕ 日本\n'],
    ['a file past the one-shot size', 'x: 1\n'.repeat(20_000)],
  ])('given %s, then its SHA is the one git gives it, as text and as bytes', async (_, text) => {
    const bytes = Buffer.from(text, 'utf8');
    const expected = await gitBlobOid(bytes);

    expect(blobOidOf(text)).toBe(expected);
    expect(blobOidOf(new Uint8Array(bytes))).toBe(expected);
    expect(objectOidOf('blob', bytes)).toBe(expected);
  });
});
