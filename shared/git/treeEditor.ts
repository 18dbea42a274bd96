import type { Delta, ObjectStore } from './objectStore';

export type TreeEntry = { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' };
/** Reads the entries of an existing tree (from the cache, the local repository or the store). */
export type ReadTree = (oid: string) => Promise<TreeEntry[]>;

/** An entry; `line` is its serialized form in a tree object, kept until its SHA changes. */
type Node = { mode: string; oid: string; type: TreeEntry['type']; dir?: Dir; line?: Buffer };
/** An entry's place in git's order: `key` compares as git compares the entry's name. */
type Row = { key: string; name: string };
type Dir = {
  entries: Map<string, Node> | null;
  oid: string | null;
  /** Names of sub-folders with changes not yet written. */
  dirtyChildren: Set<string>;
  dirty: boolean;
  /** The entries in git's order as of the last write; null until first computed. */
  rows: Row[] | null;
  /** Names added since `rows` was computed, and whether any were removed. */
  added: Set<string>;
  removed: boolean;
  /** The folder's last written version, which the next can be a delta of. */
  written: Written | null;
};
/** A tree object as written: its entries in order and their lines. */
type Written = { oid: string; rows: Row[]; lines: Buffer[]; size: number };

export type TreeEditor = {
  put(segments: string[], content: Buffer): Promise<void>;
  remove(segments: string[]): Promise<void>;
  /** Every file under a folder, as repository-relative paths. */
  listFiles(segments: string[]): Promise<string[]>;
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
  rows: null,
  added: new Set(),
  removed: false,
  written: null,
});

/**
 * Views kept between publications, by root tree SHA (a view is taken out while an editor uses it).
 * A view holds a tree's content only, so any repository holding that tree can use it.
 */
const KEPT_VIEWS = 4;
const keptViews = new Map<string, Dir>();

/**
 * A lazily loaded, editable view of a tree: only the folders on changed paths are read and
 * rewritten; untouched subtrees keep their SHAs. Successive writes edit the same view, so each
 * write costs O(changed paths), not O(repository), plus a copy of each changed folder's kept bytes.
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
  const kept = rootTree === null ? undefined : keptViews.get(rootTree);
  if (rootTree !== null) keptViews.delete(rootTree);
  const root: Dir = kept ?? newDir(rootTree, rootTree ? null : new Map());

  async function load(dir: Dir): Promise<Map<string, Node>> {
    if (dir.entries) return dir.entries;
    const entries = new Map<string, Node>();
    for (const e of await readTree(dir.oid!)) entries.set(e.path, { mode: e.mode, oid: e.oid, type: e.type });
    dir.entries = entries;
    return entries;
  }

  function added(dir: Dir, name: string): void {
    if (dir.rows) dir.added.add(name);
  }

  function removed(dir: Dir, name: string): void {
    dir.entries!.delete(name);
    dir.removed = true;
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
        node = { mode: '40000', oid: '', type: 'tree', dir: newDir(null, new Map()) };
        entries.set(name, node);
        added(dir, name);
      }
      node.dir ??= newDir(node.oid);
      dir = node.dir;
      trail.push(dir);
    }
    if (create)
      trail.forEach((d, i) => {
        d.dirty = true;
        if (i < trail.length - 1) d.dirtyChildren.add(segments[i]!);
      });
    return dir;
  }

  async function collect(dir: Dir, prefix: string, out: string[]): Promise<void> {
    for (const [name, node] of await load(dir)) {
      const path = prefix ? `${prefix}/${name}` : name;
      if (node.type === 'tree') {
        node.dir ??= newDir(node.oid);
        await collect(node.dir, path, out);
      } else out.push(path);
    }
  }

  function write(dir: Dir): string | null {
    if (!dir.dirty) return dir.oid;
    const entries = dir.entries!;
    for (const name of dir.dirtyChildren) {
      const node = entries.get(name);
      if (!node?.dir) continue;
      const oid = write(node.dir);
      if (oid === null) removed(dir, name);
      else if (oid !== node.oid) {
        node.oid = oid;
        node.line = undefined;
      }
    }
    dir.dirtyChildren.clear();
    dir.dirty = false;
    if (entries.size === 0) {
      dir.oid = null;
      return null;
    }
    const { bytes, rows, lines } = serializeTree(dir);
    const base = dir.written;
    // a delta on the folder's previous version in this same pack: a folder of thousands of files
    // that gained a few costs a few lines to deflate and send, not the whole folder again
    const delta = base && store.takesDeltaOn(base.oid) ? deltaOf(base, rows, lines) : null;
    dir.oid = store.add('tree', bytes, delta ?? undefined);
    dir.written = { oid: dir.oid, rows, lines, size: bytes.length };
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
      if (!existing) added(dir, name);
    },
    async remove(segments) {
      const dir = await parentOf(segments, false);
      if (!dir) return;
      const entries = await load(dir);
      if (!entries.has(segments.at(-1)!)) return;
      await parentOf(segments, true);
      removed(dir, segments.at(-1)!);
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
      node.dir ??= newDir(node.oid);
      const out: string[] = [];
      await collect(node.dir, segments.join('/'), out);
      return out;
    },
    writeTree() {
      return write(root) ?? store.add('tree', Buffer.alloc(0));
    },
    keep() {
      if (root.dirty || root.oid === null) return;
      keptViews.delete(root.oid);
      keptViews.set(root.oid, root);
      for (const oldest of keptViews.keys()) {
        if (keptViews.size <= KEPT_VIEWS) break;
        keptViews.delete(oldest);
      }
    },
  };
}

/**
 * A tree object's bytes. A folder of tens of thousands of files is rewritten by every commit that
 * touches it, so its order is kept between writes (new names are merged in) and each entry keeps
 * its serialized line: a write copies bytes instead of formatting every entry again.
 */
function serializeTree(dir: Dir): { bytes: Buffer; rows: Row[]; lines: Buffer[] } {
  const entries = dir.entries!;
  const rows = orderedRows(dir);
  const lines: Buffer[] = [];
  let size = 0;
  for (const { name } of rows) {
    const node = entries.get(name)!;
    node.line ??= lineOf(name, node);
    lines.push(node.line);
    size += node.line.length;
  }
  return { bytes: Buffer.concat(lines, size), rows, lines };
}

/**
 * The new version of a folder as git delta instructions on its previous version: runs of unchanged
 * lines are copied from the base, the rest is inserted. Both versions are in git order, so one walk
 * pairs them. Null when a delta would not be much smaller than the tree.
 */
function deltaOf(base: Written, rows: Row[], lines: Buffer[]): Delta | null {
  const size = lines.reduce((sum, line) => sum + line.length, 0);
  const out = new DeltaWriter(base.size, size);
  let b = 0;
  let at = 0;
  for (let i = 0; i < rows.length; i++) {
    const { key } = rows[i]!;
    while (b < base.rows.length && base.rows[b]!.key < key) at += base.lines[b++]!.length;
    const old = base.lines[b];
    const line = lines[i]!;
    if (old !== undefined && base.rows[b]!.key === key) {
      if (old === line || old.equals(line)) out.copy(at, line.length);
      else out.insert(line);
      at += old.length;
      b++;
    } else out.insert(line);
    if (out.length > size / 2) return null;
  }
  const instructions = out.finish();
  return instructions.length > size / 2 ? null : { base: base.oid, instructions };
}

/** Writes git's delta format: both sizes as varints, then copy and insert instructions. */
class DeltaWriter {
  private readonly parts: Buffer[] = [];
  private bytes: number[] = [];
  private copyFrom = -1;
  private copyLength = 0;
  private inserting: Buffer[] = [];
  private insertLength = 0;
  length = 0;

  constructor(baseSize: number, resultSize: number) {
    this.varint(baseSize);
    this.varint(resultSize);
  }

  copy(offset: number, length: number): void {
    this.flushInsert();
    if (this.copyFrom >= 0 && this.copyFrom + this.copyLength === offset) this.copyLength += length;
    else {
      this.flushCopy();
      this.copyFrom = offset;
      this.copyLength = length;
    }
  }

  insert(line: Buffer): void {
    this.flushCopy();
    this.inserting.push(line);
    this.insertLength += line.length;
  }

  finish(): Buffer {
    this.flushCopy();
    this.flushInsert();
    this.flushBytes();
    return Buffer.concat(this.parts);
  }

  private varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.push(0x80 | (rest & 0x7f));
      rest = Math.floor(rest / 128);
    }
    this.push(rest);
  }

  private push(byte: number): void {
    this.bytes.push(byte);
    this.length++;
  }

  private flushBytes(): void {
    if (this.bytes.length === 0) return;
    this.parts.push(Buffer.from(this.bytes));
    this.bytes = [];
  }

  /** Copies of at most 64 KiB each (size 0 means 0x10000), offsets of up to 4 bytes. */
  private flushCopy(): void {
    let offset = this.copyFrom;
    let remaining = this.copyLength;
    while (this.copyFrom >= 0 && remaining > 0) {
      const size = Math.min(remaining, 0x10000);
      const args: number[] = [];
      let op = 0x80;
      for (let i = 0; i < 4; i++) {
        const byte = Math.floor(offset / 2 ** (8 * i)) & 0xff;
        if (byte !== 0) {
          op |= 1 << i;
          args.push(byte);
        }
      }
      if (size !== 0x10000)
        for (let i = 0; i < 3; i++) {
          const byte = (size >> (8 * i)) & 0xff;
          if (byte !== 0) {
            op |= 0x10 << i;
            args.push(byte);
          }
        }
      this.push(op);
      for (const arg of args) this.push(arg);
      offset += size;
      remaining -= size;
    }
    this.copyFrom = -1;
    this.copyLength = 0;
  }

  /** Inserts of at most 127 bytes each. */
  private flushInsert(): void {
    if (this.insertLength === 0) return;
    const data = Buffer.concat(this.inserting, this.insertLength);
    for (let at = 0; at < data.length; at += 127) {
      const chunk = data.subarray(at, Math.min(at + 127, data.length));
      this.push(chunk.length);
      this.flushBytes();
      this.parts.push(chunk);
      this.length += chunk.length;
    }
    this.inserting = [];
    this.insertLength = 0;
  }
}

function orderedRows(dir: Dir): Row[] {
  const entries = dir.entries!;
  const rowOf = (name: string): Row => ({ key: sortKey(name, entries.get(name)!.type === 'tree'), name });
  let rows = dir.rows;
  if (rows === null) rows = [...entries.keys()].map(rowOf).sort(byKey);
  else {
    const { added } = dir;
    // a name removed and added again may be back as the other kind (a file where a folder was)
    if (dir.removed) rows = rows.filter((row) => entries.has(row.name) && !added.has(row.name));
    if (added.size > 0)
      rows = merge(
        rows,
        [...added]
          .filter((name) => entries.has(name))
          .map(rowOf)
          .sort(byKey),
      );
  }
  dir.rows = rows;
  dir.added.clear();
  dir.removed = false;
  return rows;
}

const byKey = (a: Row, b: Row) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function merge(a: Row[], b: Row[]): Row[] {
  const out: Row[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = byKey(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

function lineOf(name: string, node: Node): Buffer {
  const head = `${node.type === 'tree' ? '40000' : node.mode.replace(/^0+/, '')} ${name}\0`;
  const line = Buffer.allocUnsafe(Buffer.byteLength(head) + 20);
  line.write(node.oid, line.write(head, 0, 'utf8'), 'hex');
  return line;
}

const NON_ASCII = /[^\x20-\x7e]/;

/**
 * git orders entries by name bytes, a folder's name compared as if it ended with '/'. As a latin1
 * string of its UTF-8 bytes, a name compares like its bytes; a printable ASCII name already is that string.
 */
function sortKey(name: string, isTree: boolean): string {
  const key = isTree ? `${name}/` : name;
  return NON_ASCII.test(key) ? Buffer.from(key, 'utf8').toString('latin1') : key;
}
