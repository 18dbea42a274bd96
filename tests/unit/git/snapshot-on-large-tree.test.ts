/**
 * A resync snapshot re-states every file of its scope, yet on a large existing tree only the files
 * that differ may cost work: a publication that re-packs the whole tree each time never finishes
 * within its bound on a 100,000-file repository (issue 18), and then blocks the branch for good.
 * Counted here as objects written and trees read, not as time.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { buildCommits } from '../../../shared/git/build-commits';
import { createObjectStore, type ObjectStore } from '../../../shared/git/object-store';
import type { TreeEntry } from '../../../shared/git/tree-editor';
import type { GitWrite } from '../../../shared/git/types';
import { aWrite } from '../../support/git/a-write';
import { storedObjects } from '../../support/git/stored-objects';

const NAMESPACES = 40;
const TYPES = 3;
const FILES = 3_000;
const CHANGED = FILES / 100;

const pathOf = (i: number) => `ns-${i % NAMESPACES}/kind${i % TYPES}s/obj-${i}.yaml`;
const contentOf = (i: number, version: number) => `name: obj-${i}\nversion: ${version}\n`;

/** A whole-target snapshot with pruning, as a resync publishes it; files in `changed` at version 1. */
function snapshot(changed: (i: number) => boolean, id: string): GitWrite {
  const files = Array.from({ length: FILES }, (_, i) => ({
    path: pathOf(i),
    content: contentOf(i, changed(i) ? 1 : 0),
  }));
  return aWrite({ id, operations: [{ op: 'snapshot', scope: '.', files, prune: 'Always' }] });
}

/** Every tree each publication wrote, as a cache or the remote would give them back; reads counted. */
function treeStore() {
  const trees = new Map<string, TreeEntry[]>();
  let reads = 0;
  return {
    async remember(store: ObjectStore) {
      for (const [oid, object] of await storedObjects(store)) {
        if (object.type !== 'tree') continue;
        expect(object.deltaBase).toBeUndefined(); // each folder written once per publication here
        const data = inflateSync(object.deflated);
        const entries: TreeEntry[] = [];
        for (let at = 0; at < data.length; ) {
          const space = data.indexOf(0x20, at);
          const nul = data.indexOf(0, space);
          const mode = data.toString('utf8', at, space);
          entries.push({
            mode,
            path: data.toString('utf8', space + 1, nul),
            oid: data.toString('hex', nul + 1, nul + 21),
            type: mode === '40000' ? 'tree' : 'blob',
          });
          at = nul + 21;
        }
        trees.set(oid, entries);
      }
    },
    readTree: async (oid: string) => {
      reads++;
      const entries = trees.get(oid);
      if (!entries) throw new Error(`tree ${oid} was never written`);
      return entries;
    },
    get reads() {
      return reads;
    },
    get count() {
      return trees.size;
    },
  };
}

const blobOid = (content: string) => {
  const bytes = Buffer.from(content);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
};

async function publishFirst() {
  const trees = treeStore();
  const first = createObjectStore();
  const built = await buildCommits({
    base: null,
    baseTree: null,
    writes: [snapshot(() => false, 'full')],
    readTree: trees.readTree,
    store: first,
  });
  if (built.kind !== 'built') throw new Error(built.cause);
  await trees.remember(first);
  const head = built.head!;
  const headObject = (await storedObjects(first)).find(([oid]) => oid === head)![1];
  const commitText = inflateSync(headObject.deflated).toString('utf8');
  return { trees, head, tree: commitText.slice('tree '.length, 'tree '.length + 40) };
}

describe('a snapshot with 1% changed on a large tree', () => {
  const changed = (i: number) => i % 100 === 0;
  const changedPaths = Array.from({ length: FILES }, (_, i) => i)
    .filter(changed)
    .map((i) => pathOf(i).split('/'));
  /** What a 1% change may write: its blobs, the folders on their paths, the root and one commit. */
  const bound =
    CHANGED +
    new Set(changedPaths.map(([ns, kind]) => `${ns}/${kind}`)).size +
    new Set(changedPaths.map(([ns]) => ns)).size +
    2;

  it('given the tree the last publication wrote, when the snapshot is built, then only the changed files, their folders and a commit are written', async () => {
    const { trees, head, tree } = await publishFirst();
    const store = createObjectStore();

    const built = await buildCommits({
      base: head,
      baseTree: tree,
      writes: [snapshot(changed, 'one-percent')],
      readTree: trees.readTree,
      store,
    });

    expect(built.kind).toBe('built');
    const written = await storedObjects(store);
    const blobs = written.filter(([, o]) => o.type === 'blob').map(([oid]) => oid);
    expect(blobs.sort()).toEqual(
      Array.from({ length: FILES }, (_, i) => i)
        .filter(changed)
        .map((i) => blobOid(contentOf(i, 1)))
        .sort(),
    );
    expect(written.length).toBeLessThanOrEqual(bound);
    expect(written.length).toBeLessThan(FILES / 10);
  });

  it('given a cold start on that tree (a retried attempt, a new worker), when the snapshot is built, then each folder is read at most once and only the change is written', async () => {
    const { trees, head, tree } = await publishFirst();
    // an attempt whose push timed out: it took the view kept of this tree and edited it
    await buildCommits({
      base: head,
      baseTree: tree,
      writes: [snapshot(changed, 'one-percent')],
      readTree: trees.readTree,
      store: createObjectStore(),
    });
    const readsBefore = trees.reads;
    const store = createObjectStore();

    const built = await buildCommits({
      base: head,
      baseTree: tree,
      writes: [snapshot(changed, 'one-percent')],
      readTree: trees.readTree,
      store,
    });

    expect(built.kind).toBe('built');
    expect(trees.reads - readsBefore).toBeGreaterThan(0); // this attempt did start cold
    expect(trees.reads - readsBefore).toBeLessThanOrEqual(trees.count);
    expect(store.size).toBeLessThanOrEqual(bound);
  });

  it('given the same snapshot again, when it is built, then it writes nothing and makes no commit', async () => {
    const { trees, head, tree } = await publishFirst();
    const store = createObjectStore();

    const built = await buildCommits({
      base: head,
      baseTree: tree,
      writes: [snapshot(() => false, 'again')],
      readTree: trees.readTree,
      store,
    });

    expect(built).toMatchObject({ kind: 'built', created: 0, head });
    expect(store.size).toBe(0);
  });
});

describe('two branches holding the same folders (a repository mirrored to two remotes)', () => {
  it('each keep a view of their own: neither reads the folders on its paths again after the other published', async () => {
    const first = await publishFirst();
    const { trees } = first;
    /** The same write on `branch`: the same folders as the other branch's, so the same root tree. */
    const publishOn = async (branch: string, base: { head: string; tree: string }, version: number) => {
      const store = createObjectStore();
      const built = await buildCommits({
        viewScope: branch,
        base: base.head,
        baseTree: base.tree,
        writes: [aWrite({ files: { [pathOf(0)]: contentOf(0, version) } })],
        readTree: trees.readTree,
        store,
      });
      if (built.kind !== 'built') throw new Error(built.cause);
      await trees.remember(store);
      const commit = (await storedObjects(store)).find(([oid]) => oid === built.head)![1];
      const text = inflateSync(commit.deflated).toString('utf8');
      return { head: built.head!, tree: text.slice('tree '.length, 'tree '.length + 40) };
    };
    const a = await publishOn('a', first, 1);
    const b = await publishOn('b', first, 1);
    expect(b.tree).toBe(a.tree);
    const read = trees.reads;

    // each branch's next write starts from its own kept view of that root: with views kept by the
    // root alone, the first to publish took the only one, and the other read its paths again
    await publishOn('a', a, 2);
    await publishOn('b', b, 2);

    expect(trees.reads).toBe(read);
  });
});
