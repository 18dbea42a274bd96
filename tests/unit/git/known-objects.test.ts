import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { objectOidOf } from '../../../shared/git/blob-oid';
import { readCheckedCommit, readCheckedTree } from '../../../shared/git/checked-objects';
import { forgetReadCache } from '../../../shared/git/kept-read-cache';
import {
  FETCHED_OBJECTS_MAX_BYTES,
  keepFetchedObjects,
  keepPushedCommit,
  knownObjectCount,
  readingFs,
} from '../../../shared/git/known-objects';
import type { PackObject } from '../../../shared/git/unpack-objects';
import { runGit } from '../../support/git/run-git';

// What a publication reads right after a fetch (the tip, the folders on its paths) or after its
// own push (the tip) is served from memory; isomorphic-git still checks each object against its
// SHA and parses it with its own rules, as it does a loose object (`_readObject`, `GitTree`).

/** A tree object's bytes: `<mode> <name>\0<20-byte SHA>` per entry, in the order given. */
const treeBytes = (entries: { mode: string; name: string; oid: string }[]) =>
  Buffer.concat(
    entries.map(({ mode, name, oid }) =>
      Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')]),
    ),
  );
const blobOid = objectOidOf('blob', Buffer.from('a\n'));
const visited = (type: PackObject['type'], data: Buffer): PackObject => ({
  oid: objectOidOf(type, data),
  type,
  data,
  offset: 0,
  end: 0,
});

let gitdir: string;
beforeEach(async () => {
  gitdir = join(await mkdtemp(join(tmpdir(), 'known-objects-')), 'r.git');
  // an object cache as a fetch finds it: no object on disk but what the fetch installs
  await runGit({ args: ['init', '-q', '--bare', gitdir] });
});

it('serves the folders and the commit a fetch indexed, parsed by isomorphic-git, with none on disk', async () => {
  const tree = visited('tree', treeBytes([{ mode: '100644', name: 'a.yaml', oid: blobOid }]));
  const commit = visited(
    'commit',
    Buffer.from(`tree ${tree.oid}\nauthor a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\nm\n`),
  );
  const fetched = keepFetchedObjects(gitdir);
  for (const object of [commit, tree, visited('blob', Buffer.from('a\n'))]) fetched.visit(object);
  const cache = {};
  // kept only once the pack is installed
  await expect(readCheckedTree(gitdir, tree.oid, cache)).rejects.toThrow(git.Errors.NotFoundError);
  fetched.keep();

  expect(knownObjectCount(gitdir)).toBe(2);
  expect(await readCheckedTree(gitdir, tree.oid, cache)).toEqual([
    { mode: '100644', path: 'a.yaml', oid: blobOid, type: 'blob' },
  ]);
  expect((await readCheckedCommit(gitdir, commit.oid, cache)).tree).toBe(tree.oid);
});

it("keeps isomorphic-git's rules for a tree: an entry named `..` is refused as it would be on disk", async () => {
  const hostile = visited('tree', treeBytes([{ mode: '100644', name: '..', oid: blobOid }]));
  const fetched = keepFetchedObjects(gitdir);
  fetched.visit(hostile);
  fetched.keep();

  await expect(readCheckedTree(gitdir, hostile.oid, {})).rejects.toThrow(git.Errors.UnsafeFilepathError);
});

it('keeps at most its bound of a fetch, in the order indexed, and the commit pushed last', () => {
  const fetched = keepFetchedObjects(gitdir);
  const folder = (i: number) =>
    visited('tree', treeBytes([{ mode: '100644', name: `f-${i}-${'x'.repeat(64 * 1024)}`, oid: blobOid }]));
  const count = Math.ceil(FETCHED_OBJECTS_MAX_BYTES / (64 * 1024)) + 10;
  for (let i = 0; i < count; i++) fetched.visit(folder(i));
  fetched.keep();
  const kept = knownObjectCount(gitdir);
  expect(kept).toBeLessThan(count);
  expect(kept).toBeGreaterThanOrEqual(count - 12);

  keepPushedCommit(gitdir, 'c'.repeat(40), Buffer.from('tree x\n\nm\n'));
  expect(knownObjectCount(gitdir)).toBe(kept + 1);
});

it('forgets what a folder holds when it starts again or a read through it failed', async () => {
  const tree = visited('tree', treeBytes([{ mode: '100644', name: 'a.yaml', oid: blobOid }]));
  const fetched = keepFetchedObjects(gitdir);
  fetched.visit(tree);
  fetched.keep();
  expect(knownObjectCount(gitdir)).toBe(1);

  forgetReadCache(gitdir);

  expect(knownObjectCount(gitdir)).toBe(0);
  await expect(readCheckedTree(gitdir, tree.oid, {})).rejects.toThrow(git.Errors.NotFoundError);
});

it("answers isomorphic-git's probe for a promise file system with one error, not a new one each call", async () => {
  // isomorphic-git calls `readFile()` without a path twice for each of its calls (`isPromiseFs`,
  // index.cjs `bindFs`) to learn whether it returns promises; node's builds a TypeError each time
  for (const known of [false, true]) {
    if (known) {
      const fetched = keepFetchedObjects(gitdir);
      fetched.visit(visited('tree', treeBytes([{ mode: '100644', name: 'a.yaml', oid: blobOid }])));
      fetched.keep();
    }
    const { promises } = readingFs(gitdir) as git.PromiseFsClient;
    const probe = () =>
      (promises.readFile as (path?: string) => Promise<unknown>)().catch((error: unknown) => error);
    const first = await probe();
    expect(first).toBeInstanceOf(TypeError);
    expect(await probe()).toBe(first);
  }
});

it('reads a known object once, checked against its id by isomorphic-git as a loose one: bytes that are not their id are refused', async () => {
  const tree = visited('tree', treeBytes([{ mode: '100644', name: 'a.yaml', oid: blobOid }]));
  const other = visited('tree', treeBytes([{ mode: '100644', name: 'b.yaml', oid: blobOid }]));
  const fetched = keepFetchedObjects(gitdir);
  fetched.visit(tree);
  // held under an id its bytes do not hash to
  fetched.visit({ ...other, oid: 'e'.repeat(40) });
  fetched.keep();
  // the file system isomorphic-git is given: the reads it asks of it for the object's loose path
  const promises = (readingFs(gitdir) as git.PromiseFsClient).promises as unknown as {
    readFile: (path?: string) => Promise<unknown>;
  };
  const reads = jest.spyOn(promises, 'readFile');

  expect(await readCheckedTree(gitdir, tree.oid, {})).toHaveLength(1);
  const loose = `${join(gitdir, 'objects', tree.oid.slice(0, 2))}/${tree.oid.slice(2)}`;
  expect(reads.mock.calls.filter(([path]) => path === loose)).toHaveLength(1);
  await expect(readCheckedTree(gitdir, 'e'.repeat(40), {})).rejects.toThrow('SHA check failed');
});
