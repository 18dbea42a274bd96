import { blobOidOf, contentBytes } from './blob-oid';
import { keepLatest } from './keep-latest';
import type { ObjectStore } from './object-store';
import { editedTree, type TreeNode, type TreeVersion, wholeTree } from './tree-versions';

export type TreeEntry = { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' };
/** Reads the entries of an existing tree (from the cache, the local repository or the store). */
export type ReadTree = (oid: string) => Promise<TreeEntry[]>;

type Node = TreeNode & { dir?: Dir };
type Dir = {
  entries: Map<string, Node> | null;
  oid: string | null;
  /** Names of sub-folders with changes not yet written. */
  dirtyChildren: Set<string>;
  dirty: boolean;
  /** Names added, replaced, removed or given a new SHA since `written`. */
  touched: Set<string>;
  /** The folder's last written version: the next one is an edit of it, and can be a delta on it. */
  written: (TreeVersion & { oid: string }) | null;
};

export type TreeEditor = {
  put(segments: string[], content: string | Uint8Array): Promise<void>;
  /** Puts a blob the remote already holds, by its SHA and mode (a commit replayed on another parent). */
  putBlob(segments: string[], oid: string, mode: string): Promise<void>;
  remove(segments: string[]): Promise<void>;
  /** Every file under a folder, as repository-relative paths. */
  listFiles(segments: string[]): Promise<string[]>;
  /** A file's blob SHA as the tree has it now, or undefined when there is no file there. */
  blobOid(segments: string[]): Promise<string | undefined>;
  /** Writes the changed trees into the store and returns the root tree's SHA. */
  writeTree(): string;
  /**
   * Keeps this view, as of its last `writeTree`, for the next editor that starts from that tree:
   * the next publication on a branch starts where this one ended, and then reads and orders no
   * folder again. Call it once the editor is done with.
   */
  keep(): void;
};

/** Thrown inside a write when the tree shape forbids an operation; the caller turns it into writeRefused. */
export class TreeConflict extends Error {}

const newDir = (oid: string | null, entries: Map<string, Node> | null = null): Dir => ({
  entries,
  oid,
  dirtyChildren: new Set(),
  dirty: oid === null,
  touched: new Set(),
  written: null,
});

/**
 * Views kept between publications, by the branch that built them (its object cache) and root tree
 * SHA; a view is taken out while an editor uses it. Keyed by the tree alone, two branches holding
 * the same folders (a repository mirrored to two remotes, a pull request's branch beside its
 * base) took each other's: the first to publish took the view, the other read every folder on its
 * paths again.
 */
const KEPT_VIEWS = 4;
/** How many folders a walk reads at once. */
const READ_AHEAD = 64;
const keptViews = new Map<string, Dir>();
const NOT_LOADED = Symbol('not loaded');

/**
 * A lazily loaded, editable view of a tree: only the folders on changed paths are read and
 * rewritten; untouched subtrees keep their SHAs. Successive writes edit the same view, so each
 * write costs O(changed paths), not O(repository), plus a copy of each changed folder's kept bytes.
 */
export function createTreeEditor({
  rootTree,
  readTree,
  store,
  viewScope = '',
}: {
  rootTree: string | null;
  readTree: ReadTree;
  store: ObjectStore;
  /** Whose kept views these are: the branch's object cache. */
  viewScope?: string;
}): TreeEditor {
  const kept = rootTree === null ? undefined : keptViews.get(viewKeyOf(viewScope, rootTree));
  if (rootTree !== null) keptViews.delete(viewKeyOf(viewScope, rootTree));
  return new EditedTree(kept ?? newDir(rootTree, rootTree ? null : new Map()), readTree, store, viewScope);
}

const viewKeyOf = (viewScope: string, tree: string) => `${viewScope}\n${tree}`;

/**
 * The editor's view and its methods, a class rather than closures made for each editor: V8 holds a
 * closure's optimized code only weakly, so the closures of each publication's editor were
 * optimized again in every publication that followed a collection (5–35 ms of compiling each).
 */
class EditedTree implements TreeEditor {
  constructor(
    private readonly root: Dir,
    private readonly readTree: ReadTree,
    private readonly store: ObjectStore,
    private readonly viewScope: string,
  ) {}

  private async load(dir: Dir): Promise<Map<string, Node>> {
    if (dir.entries) return dir.entries;
    const entries = new Map<string, Node>();
    for (const e of await this.readTree(dir.oid!))
      entries.set(e.path, { mode: e.mode, oid: e.oid, type: e.type });
    dir.entries = entries;
    return entries;
  }

  private removed(dir: Dir, name: string): void {
    dir.entries!.delete(name);
    dir.touched.add(name);
  }

  /**
   * The node at `segments` when every folder on the way is read already (a kept view, a walked
   * scope), found without waiting; undefined when there is none, NOT_LOADED when a folder on the
   * way is still to be read.
   */
  private loadedNode(segments: string[]): Node | undefined | typeof NOT_LOADED {
    let dir = this.root;
    for (let i = 0; i < segments.length - 1; i++) {
      if (!dir.entries) return NOT_LOADED;
      const node = dir.entries.get(segments[i]!);
      if (node?.type !== 'tree') return undefined;
      if (!node.dir) return NOT_LOADED;
      dir = node.dir;
    }
    return dir.entries ? dir.entries.get(segments.at(-1)!) : NOT_LOADED;
  }

  /** The node at `segments`, reading the folders on the way; undefined when there is none. */
  private async nodeAt(segments: string[]): Promise<Node | undefined> {
    const dir = await this.parentOf(segments, false);
    return dir ? (await this.load(dir)).get(segments.at(-1)!) : undefined;
  }

  /** The folder holding `segments`' last name, or null when it does not exist and `create` is false. */
  private async parentOf(segments: string[], create: boolean): Promise<Dir | null> {
    let dir = this.root;
    const trail: Dir[] = [this.root];
    for (let i = 0; i < segments.length - 1; i++) {
      const name = segments[i]!;
      const entries = await this.load(dir);
      let node = entries.get(name);
      if (node && node.type !== 'tree') {
        if (!create) return null;
        throw new TreeConflict(`${segments.slice(0, i + 1).join('/')} is a file, not a folder`);
      }
      if (!node) {
        if (!create) return null;
        node = { mode: '40000', oid: '', type: 'tree', dir: newDir(null, new Map()) };
        entries.set(name, node);
        dir.touched.add(name);
      }
      node.dir ??= newDir(node.oid);
      dir = node.dir;
      trail.push(dir);
    }
    if (create)
      for (let i = 0; i < trail.length; i++) {
        trail[i]!.dirty = true;
        if (i < trail.length - 1) trail[i]!.dirtyChildren.add(segments[i]!);
      }
    return dir;
  }

  /**
   * Reads every folder under `dir` not read yet, a level at a time and READ_AHEAD at once: a cold
   * walk of thousands of folders then waits on the disk in parallel, not once per folder in turn.
   */
  private async loadBelow(dir: Dir): Promise<void> {
    let level = [dir];
    while (level.length > 0) {
      for (let i = 0; i < level.length; i += READ_AHEAD)
        await Promise.all(level.slice(i, i + READ_AHEAD).map((d) => this.load(d)));
      const next: Dir[] = [];
      for (const d of level)
        for (const node of d.entries!.values())
          if (node.type === 'tree') {
            node.dir ??= newDir(node.oid);
            next.push(node.dir);
          }
      level = next;
    }
  }

  private async collect(dir: Dir, prefix: string, out: string[]): Promise<void> {
    for (const [name, node] of await this.load(dir)) {
      const path = prefix ? `${prefix}/${name}` : name;
      if (node.type === 'tree') {
        node.dir ??= newDir(node.oid);
        await this.collect(node.dir, path, out);
      } else out.push(path);
    }
  }

  private write(dir: Dir): string | null {
    if (!dir.dirty) return dir.oid;
    const entries = dir.entries!;
    for (const name of dir.dirtyChildren) {
      const node = entries.get(name);
      if (!node?.dir) continue;
      const oid = this.write(node.dir);
      if (oid === null) this.removed(dir, name);
      else if (oid !== node.oid) {
        node.oid = oid;
        dir.touched.add(name);
      }
    }
    dir.dirtyChildren.clear();
    dir.dirty = false;
    if (entries.size === 0) {
      dir.oid = null;
      return null;
    }
    const base = dir.written;
    // a delta on the folder's previous version in this same pack: a folder of thousands of files
    // that gained a few costs a few lines to deflate and send, not the whole folder again
    const { version, delta } = base
      ? editedTree(base, entries, dir.touched, this.store.takesDeltaOn(base.oid))
      : { version: wholeTree(entries), delta: null };
    dir.touched.clear();
    dir.oid = this.store.add(
      'tree',
      version.bytes,
      base && delta ? { base: base.oid, instructions: delta } : undefined,
    );
    dir.written = { ...version, oid: dir.oid };
    return dir.oid;
  }

  async put(segments: string[], content: string | Uint8Array): Promise<void> {
    // a file already holding these bytes changes nothing: a snapshot re-puts every file of its
    // scope, and only the few that differ may cost a blob, a folder rewrite and pack space
    const known = this.loadedNode(segments);
    const same = known === NOT_LOADED ? await this.nodeAt(segments) : known;
    // hashed only to compare with a file there, then handed to the store, which does not hash it
    // again: a new file's SHA is the store's to compute
    const oid = same?.type === 'blob' ? blobOidOf(content) : undefined;
    if (oid !== undefined && same?.oid === oid) return;
    const dir = (await this.parentOf(segments, true))!;
    const entries = await this.load(dir);
    const name = segments.at(-1)!;
    const existing = entries.get(name);
    if (existing?.type === 'tree') throw new TreeConflict(`${segments.join('/')} is a folder, not a file`);
    const mode = existing?.type === 'blob' ? existing.mode : '100644';
    entries.set(name, {
      mode,
      oid: this.store.add('blob', contentBytes(content), undefined, oid),
      type: 'blob',
    });
    dir.touched.add(name);
  }

  async putBlob(segments: string[], oid: string, mode: string): Promise<void> {
    const dir = (await this.parentOf(segments, true))!;
    const entries = await this.load(dir);
    const name = segments.at(-1)!;
    const existing = entries.get(name);
    if (existing?.type === 'blob' && existing.oid === oid && existing.mode === mode) return;
    if (existing?.type === 'tree') throw new TreeConflict(`${segments.join('/')} is a folder, not a file`);
    entries.set(name, { mode, oid, type: 'blob' });
    dir.touched.add(name);
  }

  async remove(segments: string[]): Promise<void> {
    const dir = await this.parentOf(segments, false);
    if (!dir) return;
    const entries = await this.load(dir);
    if (!entries.has(segments.at(-1)!)) return;
    await this.parentOf(segments, true);
    this.removed(dir, segments.at(-1)!);
  }

  async listFiles(segments: string[]): Promise<string[]> {
    if (segments.length === 0) {
      const out: string[] = [];
      await this.loadBelow(this.root);
      await this.collect(this.root, '', out);
      return out;
    }
    const node = await this.nodeAt(segments);
    if (node?.type !== 'tree') return [];
    node.dir ??= newDir(node.oid);
    const out: string[] = [];
    await this.loadBelow(node.dir);
    await this.collect(node.dir, segments.join('/'), out);
    return out;
  }

  async blobOid(segments: string[]): Promise<string | undefined> {
    const node = await this.nodeAt(segments);
    return node?.type === 'blob' ? node.oid : undefined;
  }

  writeTree(): string {
    return this.write(this.root) ?? this.store.add('tree', Buffer.alloc(0));
  }

  keep(): void {
    if (this.root.dirty || this.root.oid === null) return;
    keepLatest(keptViews, viewKeyOf(this.viewScope, this.root.oid), this.root, KEPT_VIEWS);
  }
}
