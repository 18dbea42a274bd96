import { blobOidOf } from '../../../shared/git/blob-oid';
import { buildCommits } from '../../../shared/git/build-commits';
import { createObjectStore } from '../../../shared/git/object-store';
import type { GitOperation } from '../../../shared/git/types';
import { aWrite } from '../../support/git/a-write';

const FILES = {
  't/ns/secrets/a.sops.yaml': 'a1',
  't/ns/secrets/b.sops.yaml': 'b1',
  't/ns/configmaps/c.yaml': 'c1',
};
const MATCH = '^[^/]+/secrets/[^/]+\\.sops\\.yaml$';

/** Builds `writes` (operations each) on an empty tree, the first one putting FILES and a marker. */
async function build(marker: string | undefined, ...writes: GitOperation[][]) {
  const first = { ...FILES, ...(marker === undefined ? {} : { 't/.marker': marker }) };
  return buildCommits({
    base: null,
    baseTree: null,
    writes: [
      aWrite({ files: first, targetPath: 't' }),
      ...writes.map((operations) => aWrite({ operations, targetPath: 't' })),
    ],
    readTree: async () => [],
    store: createObjectStore(),
  });
}

/** A rewrite whose marker wants `wanted`; it records what it is given and answers from `answer`. */
function rewrite(
  wanted: string,
  answer: (path: string) => string | undefined,
  seen: [string, string][],
): GitOperation {
  return {
    op: 'rewrite',
    marker: { path: 't/.marker', content: wanted },
    scope: 't',
    match: MATCH,
    rewrite: async (path, blobOid) => {
      seen.push([path, blobOid]);
      return answer(path);
    },
  };
}

describe('a rewrite operation', () => {
  it('given a stale marker then it rewrites the matching files, leaves what it is told to, and puts the marker', async () => {
    const seen: [string, string][] = [];
    const after: [string, string][] = [];
    const result = await build(
      'old',
      [rewrite('new', (path) => (path.endsWith('a.sops.yaml') ? 'a2' : undefined), seen)],
      // a second look, with a marker the first one did not put, reports the tree as it now is
      [rewrite('newer', () => undefined, after)],
    );
    expect(result).toMatchObject({ kind: 'built', created: 3 });
    expect(seen.sort()).toEqual([
      ['t/ns/secrets/a.sops.yaml', blobOidOf('a1')],
      ['t/ns/secrets/b.sops.yaml', blobOidOf('b1')],
    ]);
    expect(after.sort()).toEqual([
      ['t/ns/secrets/a.sops.yaml', blobOidOf('a2')],
      ['t/ns/secrets/b.sops.yaml', blobOidOf('b1')],
    ]);
  });

  it('given the marker already current, or absent, then it reads nothing and commits nothing', async () => {
    for (const marker of ['same', undefined]) {
      const seen: [string, string][] = [];
      const result = await build(marker, [rewrite('same', () => 'changed', seen)]);
      expect(result).toMatchObject({ kind: 'built', created: 1 });
      expect(seen).toEqual([]);
    }
  });

  it('given a branch without commits and nothing to rewrite then it commits nothing', async () => {
    const result = await buildCommits({
      base: null,
      baseTree: null,
      writes: [aWrite({ operations: [rewrite('new', () => 'changed', [])], targetPath: 't' })],
      readTree: async () => [],
      store: createObjectStore(),
    });
    expect(result).toMatchObject({ kind: 'built', created: 0, head: null });
  });
});
