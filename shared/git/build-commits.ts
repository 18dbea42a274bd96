import { blobOidOf, contentBytes } from './blob-oid';
import { checkWritePath } from './check-write-path';
import { type ObjectChange, withObjectList } from './commit-body';
import { rememberCommit } from './commit-summaries';
import { formatCommit } from './format-commit';
import type { ObjectStore } from './object-store';
import type { CommitSigner } from './signing/commit-signer';
import { signCommit } from './signing/sign-commit';
import { createTreeEditor, type ReadTree, TreeConflict, type TreeEditor } from './tree-editor';
import type { GitOperation, GitWrite, SnapshotFile, SnapshotParts } from './types';

/** The object id of Git's empty tree. */
const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export type BuiltCommits =
  | {
      kind: 'built';
      commits: Record<string, string | null>;
      head: string | null;
      created: number;
      /** The last commit made, as an object: what the push keeps known (`known-objects.ts`). */
      headCommit?: Buffer;
    }
  | { kind: 'writeRefused'; writeId: string; cause: string };

/**
 * Turns the ordered writes into a chain of commits on `base`, one per write that changes the tree
 * (an empty save record always commits), writing only the changed blobs and trees into `store`.
 * Writes listed in `landed` are already on the remote: they keep that SHA and are not rebuilt.
 * With a `signer`, each finished commit is signed (a rebuilt one again, on its new parent).
 */
export async function buildCommits({
  base,
  baseTree,
  writes,
  readTree,
  store,
  landed = new Map(),
  maxObjectBytes = Number.POSITIVE_INFINITY,
  readBlob,
  signer,
  viewScope,
}: {
  base: string | null;
  baseTree: string | null;
  writes: GitWrite[];
  readTree: ReadTree;
  store: ObjectStore;
  landed?: ReadonlyMap<string, string>;
  /** A file larger than this refuses its write: the remote would refuse the push, every time. */
  maxObjectBytes?: number;
  /**
   * Reads a blob of the base's history by its SHA, for the writes that read what the tree holds
   * (`remove-matching` with a selector, `edit`); blobs written by these writes are read from memory.
   */
  readBlob?: ReadBlob;
  signer?: CommitSigner | undefined;
  /** Whose kept tree views to use (`createTreeEditor`): the branch's object cache. */
  viewScope?: string;
}): Promise<BuiltCommits> {
  const reading = writes.some((write) => write.operations.some(readsContent));
  const written = new Map<string, Buffer>();
  const editorStore: ObjectStore = reading
    ? {
        ...store,
        add: (type, data, delta, known) => {
          const oid = store.add(type, data, delta, known);
          if (type === 'blob') written.set(oid, data);
          return oid;
        },
        takesDeltaOn: (base) => store.takesDeltaOn(base),
        objects: () => store.objects(),
        get size() {
          return store.size;
        },
        close: () => store.close(),
      }
    : store;
  const editor = createTreeEditor({
    rootTree: baseTree,
    readTree,
    store: editorStore,
    ...(viewScope === undefined ? {} : { viewScope }),
  });
  const contentOf = async (oid: string): Promise<Uint8Array> => {
    const held = written.get(oid);
    if (held) return held;
    if (!readBlob) throw new Error(`blob ${oid} cannot be read: no blob reader was given`);
    return readBlob(oid);
  };
  const commits: Record<string, string | null> = {};
  let head = base;
  // a branch without commits starts from the empty tree: a write that adds nothing to it commits nothing
  let tree = baseTree ?? EMPTY_TREE_OID;
  let created = 0;
  let headCommit: Buffer | undefined;
  for (const write of writes) {
    const already = landed.get(write.id);
    if (already) {
      commits[write.id] = already;
      continue;
    }
    const changed: ObjectChange[] = [];
    try {
      await applyWrite(editor, write, maxObjectBytes, contentOf, changed);
    } catch (error) {
      if (error instanceof TreeConflict)
        return { kind: 'writeRefused', writeId: write.id, cause: error.message };
      throw error;
    }
    const next = editor.writeTree();
    if (next === tree && !write.empty) {
      commits[write.id] = null;
      continue;
    }
    const message = withObjectList(write.message, changed);
    const unsigned = formatCommit({ tree: next, parent: head, ...write, message, writeId: write.id });
    const bytes = signer ? signCommit(unsigned, signer) : unsigned;
    const oid = store.add('commit', bytes);
    rememberCommit(oid, { tree: next, parent: head, bytes });
    headCommit = bytes;
    head = oid;
    tree = next;
    commits[write.id] = head;
    created++;
  }
  editor.keep();
  return { kind: 'built', commits, head, created, ...(headCommit ? { headCommit } : {}) };
}

/** Reads a blob's bytes by its SHA. */
export type ReadBlob = (oid: string) => Promise<Uint8Array>;

function readsContent(operation: GitOperation): boolean {
  return operation.op === 'edit' || (operation.op === 'remove-matching' && operation.selects !== undefined);
}

/** Applies the write's operations; what its put and delete operations did to objects goes to `changed`. */
async function applyWrite(
  editor: TreeEditor,
  write: GitWrite,
  maxObjectBytes: number,
  contentOf: ReadBlob,
  changed: ObjectChange[],
): Promise<void> {
  const target = write.targetPath;
  if (target !== '.') segmentsOf(target, '.');
  const apply = async (operation: GitOperation) => {
    const path = operation.op === 'put' || operation.op === 'delete' ? operation.path : undefined;
    const object = path === undefined ? undefined : write.describe?.(path);
    if (path === undefined || object === undefined)
      return applyOperation(editor, operation, target, contentOf, maxObjectBytes);
    // the verb is what the commit does to the file: the tree before and after, not the cluster's verb
    const segments = segmentsOf(path, target);
    const before = await editor.blobOid(segments);
    await applyOperation(editor, operation, target, contentOf, maxObjectBytes);
    const after = await editor.blobOid(segments);
    if (before === after) return;
    changed.push({
      verb: before === undefined ? 'create' : after === undefined ? 'delete' : 'update',
      object,
    });
  };
  for (const operation of write.operations) {
    await apply(operation);
    // what a snapshot's parts decide is known once they are read, and goes right after them
    if (operation.op === 'snapshot')
      for (const following of operation.after?.() ?? []) await apply(following);
  }
}

function checkSize(file: SnapshotFile, maxObjectBytes: number): void {
  const size = typeof file.content === 'string' ? Buffer.byteLength(file.content) : file.content.byteLength;
  if (size > maxObjectBytes)
    throw new TreeConflict(`file "${file.path}" is ${size} bytes, over the limit of ${maxObjectBytes}`);
}

/** A snapshot's files part by part: a list given whole is its one part. */
async function* partsOf(
  files: readonly SnapshotFile[] | SnapshotParts,
): AsyncIterable<readonly SnapshotFile[]> {
  if (typeof files === 'function') yield* files();
  else yield files;
}

/** The SHA Git names a blob of these bytes by (without storing it). */
function segmentsOf(path: string, inside: string): string[] {
  const checked = checkWritePath({ path, inside });
  if ('refused' in checked) throw new TreeConflict(checked.refused);
  return checked;
}

async function applyOperation(
  editor: TreeEditor,
  operation: GitOperation,
  target: string,
  contentOf: ReadBlob,
  maxObjectBytes: number,
): Promise<void> {
  switch (operation.op) {
    case 'put':
      checkSize(operation, maxObjectBytes);
      return editor.put(segmentsOf(operation.path, target), operation.content);
    case 'delete':
      return editor.remove(segmentsOf(operation.path, target));
    case 'snapshot': {
      const scope = operation.scope === '.' ? [] : segmentsOf(operation.scope, target);
      if (scope.length === 0 && target !== '.')
        throw new TreeConflict(`scope "." is outside the target "${target}"`);
      const inside = scope.length === 0 ? '.' : scope.join('/');
      // mark and sweep: upsert every desired file; only 'Always' removes what the snapshot lacks:
      // the files held before it that none of its parts named (its own puts add only files it has).
      // A set of the held files, each struck off as a part names it, so a part's paths are not kept
      // once it is in.
      const lacking = new Set(operation.prune === 'Always' ? await editor.listFiles(scope) : []);
      for await (const part of partsOf(operation.files))
        for (const file of part) {
          checkSize(file, maxObjectBytes);
          // a checked path is its names joined by '/', so the path itself names the file in the listing
          const segments = segmentsOf(file.path, inside);
          lacking.delete(file.path);
          await editor.put(segments, file.content);
        }
      // Only the held files the snapshot lacks are matched against the pattern: in a resync that
      // is the few deleted objects, not every file of the scope.
      const covered = operation.match === undefined ? undefined : new RegExp(operation.match);
      const relative = (path: string) => (inside === '.' ? path : path.slice(inside.length + 1));
      for (const path of lacking)
        if (covered === undefined || covered.test(relative(path))) await editor.remove(path.split('/'));
      return;
    }
    case 'rewrite': {
      const marker = segmentsOf(operation.marker.path, target);
      const wanted = contentBytes(operation.marker.content);
      const current = await editor.blobOid(marker);
      if (current === undefined || current === blobOidOf(wanted)) return;
      const scope = operation.scope === '.' ? [] : segmentsOf(operation.scope, target);
      const covered = new RegExp(operation.match);
      const prefix = scope.length === 0 ? '' : `${scope.join('/')}/`;
      const paths = (await editor.listFiles(scope)).filter((path) => covered.test(path.slice(prefix.length)));
      for (const path of paths) {
        const segments = path.split('/');
        const after = await operation.rewrite(path, (await editor.blobOid(segments))!);
        if (after !== undefined) await editor.put(segments, contentBytes(after));
      }
      await editor.put(marker, wanted);
      return;
    }
    case 'remove-matching': {
      const scope = operation.scope === '.' ? [] : segmentsOf(operation.scope, target);
      if (scope.length === 0 && target !== '.')
        throw new TreeConflict(`scope "." is outside the target "${target}"`);
      const covered = new RegExp(operation.match);
      const prefix = scope.length === 0 ? '' : `${scope.join('/')}/`;
      const paths = (await editor.listFiles(scope)).filter((path) => covered.test(path.slice(prefix.length)));
      for (const path of paths) {
        const segments = path.split('/');
        if (operation.selects && !operation.selects(await contentOf((await editor.blobOid(segments))!)))
          continue;
        await editor.remove(segments);
      }
      return;
    }
    case 'edit': {
      const segments = segmentsOf(operation.path, target);
      const current = await editor.blobOid(segments);
      if (current === undefined) throw new TreeConflict(operation.missing);
      const after = operation.edit(await contentOf(current));
      if (after !== undefined) await editor.put(segments, contentBytes(after));
      return;
    }
    default: {
      const unknown: never = operation;
      throw new TreeConflict(`unknown operation ${JSON.stringify(unknown)}`);
    }
  }
}
