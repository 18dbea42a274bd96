import type { ObjectStore } from './objectStore';

export type TreeEntry = { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' };
/** Reads the entries of an existing tree (from the cache, the local repository or the store). */
export type ReadTree = (oid: string) => Promise<TreeEntry[]>;

type Node = { mode: string; oid: string; type: TreeEntry['type']; dir?: Dir };
type Dir = { entries: Map<string, Node> | null; oid: string | null; dirty: boolean };

export type TreeEditor = {
  put(segments: string[], content: Buffer): Promise<void>;
  remove(segments: string[]): Promise<void>;
  /** Every file under a folder, as repository-relative paths. */
  listFiles(segments: string[]): Promise<string[]>;
  /** Writes the changed trees into the store and returns the root tree's SHA. */
  writeTree(): string;
};

/** Thrown inside a write when the tree shape forbids an operation; the caller turns it into writeRefused. */
export class TreeConflict extends Error {}

/**
 * A lazily loaded, editable view of a tree: only the folders on changed paths are read and
 * rewritten; untouched subtrees keep their SHAs. Successive writes edit the same view, so each
 * write costs O(changed paths), not O(repository).
 */
export function createTreeEditor({
  rootTree,
  readTree,
  store,
}: {
  rootTree: string | null;
  readTree: ReadTree;
  store: ObjectStore;
}): TreeEditor {
  const root: Dir = { entries: rootTree ? null : new Map(), oid: rootTree, dirty: false };

  async function load(dir: Dir): Promise<Map<string, Node>> {
    if (dir.entries) return dir.entries;
    const entries = new Map<string, Node>();
    for (const e of await readTree(dir.oid!)) entries.set(e.path, { mode: e.mode, oid: e.oid, type: e.type });
    dir.entries = entries;
    return entries;
  }

  /** The folder holding `segments`' last name, or null when it does not exist and `create` is false. */
  async function parentOf(segments: string[], create: boolean): Promise<Dir | null> {
    let dir = root;
    const trail: Dir[] = [root];
    for (let i = 0; i < segments.length - 1; i++) {
      const name = segments[i]!;
      const entries = await load(dir);
      let node = entries.get(name);
      if (node && node.type !== 'tree') {
        if (!create) return null;
        throw new TreeConflict(`${segments.slice(0, i + 1).join('/')} is a file, not a folder`);
      }
      if (!node) {
        if (!create) return null;
        node = { mode: '40000', oid: '', type: 'tree', dir: { entries: new Map(), oid: null, dirty: true } };
        entries.set(name, node);
      }
      node.dir ??= { entries: null, oid: node.oid, dirty: false };
      dir = node.dir;
      trail.push(dir);
    }
    if (create) for (const d of trail) d.dirty = true;
    return dir;
  }

  async function collect(dir: Dir, prefix: string, out: string[]): Promise<void> {
    for (const [name, node] of await load(dir)) {
      const path = prefix ? `${prefix}/${name}` : name;
      if (node.type === 'tree') {
        node.dir ??= { entries: null, oid: node.oid, dirty: false };
        await collect(node.dir, path, out);
      } else out.push(path);
    }
  }

  function write(dir: Dir): string | null {
    if (!dir.dirty) return dir.oid;
    const entries = dir.entries!;
    for (const [name, node] of entries) {
      if (!node.dir?.dirty) continue;
      const oid = write(node.dir);
      if (oid === null) entries.delete(name);
      else node.oid = oid;
    }
    dir.dirty = false;
    if (entries.size === 0) {
      dir.oid = null;
      return null;
    }
    // git orders entries by name bytes, a folder's name compared as if it ended with '/'
    const sorted = [...entries].sort(([a, na], [b, nb]) =>
      Buffer.compare(
        Buffer.from(na.type === 'tree' ? `${a}/` : a),
        Buffer.from(nb.type === 'tree' ? `${b}/` : b),
      ),
    );
    const bytes = Buffer.concat(
      sorted.flatMap(([name, node]) => [
        Buffer.from(`${node.type === 'tree' ? '40000' : node.mode.replace(/^0+/, '')} ${name}\0`),
        Buffer.from(node.oid, 'hex'),
      ]),
    );
    dir.oid = store.add('tree', bytes);
    return dir.oid;
  }

  return {
    async put(segments, content) {
      const dir = (await parentOf(segments, true))!;
      const entries = await load(dir);
      const name = segments.at(-1)!;
      const existing = entries.get(name);
      if (existing?.type === 'tree') throw new TreeConflict(`${segments.join('/')} is a folder, not a file`);
      const mode = existing?.type === 'blob' ? existing.mode : '100644';
      entries.set(name, { mode, oid: store.add('blob', content), type: 'blob' });
    },
    async remove(segments) {
      const dir = await parentOf(segments, false);
      if (!dir) return;
      const entries = await load(dir);
      if (!entries.has(segments.at(-1)!)) return;
      await parentOf(segments, true);
      entries.delete(segments.at(-1)!);
    },
    async listFiles(segments) {
      if (segments.length === 0) {
        const out: string[] = [];
        await collect(root, '', out);
        return out;
      }
      const dir = await parentOf(segments, false);
      if (!dir) return [];
      const node = (await load(dir)).get(segments.at(-1)!);
      if (node?.type !== 'tree') return [];
      node.dir ??= { entries: null, oid: node.oid, dirty: false };
      const out: string[] = [];
      await collect(node.dir, segments.join('/'), out);
      return out;
    },
    writeTree() {
      root.dirty = root.dirty || root.oid === null;
      return write(root) ?? store.add('tree', Buffer.alloc(0));
    },
  };
}
