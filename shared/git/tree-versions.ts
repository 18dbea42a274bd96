/**
 * The versions of one folder as tree objects. A folder of tens of thousands of files is rewritten
 * by every commit that touches it, so a new version is built as an edit of the previous one: each
 * changed name is found by binary search in the previous version's order, the unchanged runs
 * between are copied as bytes, and the same walk gives git delta instructions on the previous
 * version. A commit then costs O(changed names) to order and format, plus a copy of the folder's
 * bytes for its SHA.
 */

/** What a tree line needs of an entry. */
export type TreeNode = { mode: string; oid: string; type: 'blob' | 'tree' | 'commit' };

/** An entry's place in git's order: `key` compares as git compares the entry's name. */
type Row = { key: string; name: string };

/** A tree object's bytes, its entries in git's order, and where each entry's line starts. */
export type TreeVersion = {
  bytes: Buffer;
  rows: Row[];
  /** `starts[i]` is where row `i`'s line begins; `starts[rows.length]` is the size. */
  starts: Int32Array;
};

/** A folder's tree object, built from all of its entries. */
export function wholeTree(entries: ReadonlyMap<string, TreeNode>): TreeVersion {
  const rows = [...entries].map(([name, node]) => ({ key: sortKey(name, node.type === 'tree'), name }));
  rows.sort(byKey);
  const lines = rows.map(({ name }) => lineOf(name, entries.get(name)!));
  const starts = new Int32Array(rows.length + 1);
  for (let i = 0; i < lines.length; i++) starts[i + 1] = starts[i]! + lines[i]!.length;
  return { bytes: Buffer.concat(lines, starts[rows.length]), rows, starts };
}

/**
 * The folder's next version: `base` with the names in `touched` (added, replaced, removed or given
 * a new SHA since) as `entries` now has them. With `withDelta`, also the new version as git delta
 * instructions on `base`, or null when those would be more than half the tree's size.
 */
export function editedTree(
  base: TreeVersion,
  entries: ReadonlyMap<string, TreeNode>,
  touched: Iterable<string>,
  withDelta: boolean,
): { version: TreeVersion; delta: Buffer | null } {
  const dropped: number[] = [];
  const inserted: { at: number; row: Row; line: Buffer }[] = [];
  for (const name of touched) {
    // a name may come back as the other kind (a file where a folder was), under another key
    for (const isTree of [false, true]) {
      const key = sortKey(name, isTree);
      const at = lowerBound(base.rows, key);
      if (base.rows[at]?.key === key) dropped.push(at);
    }
    const node = entries.get(name);
    if (!node) continue;
    const row = { key: sortKey(name, node.type === 'tree'), name };
    // before the base row of the same key, which is then dropped: a replacement
    inserted.push({ at: lowerBound(base.rows, row.key), row, line: lineOf(name, node) });
  }
  dropped.sort((a, b) => a - b);
  inserted.sort((a, b) => a.at - b.at || byKey(a.row, b.row));

  let size = base.bytes.length;
  for (const at of dropped) size -= base.starts[at + 1]! - base.starts[at]!;
  for (const { line } of inserted) size += line.length;
  const count = base.rows.length - dropped.length + inserted.length;
  const rows: Row[] = new Array(count);
  const starts = new Int32Array(count + 1);
  const pieces: Buffer[] = [];
  let delta = withDelta ? new DeltaWriter(base.bytes.length, size) : null;
  let row = 0;
  let offset = 0;
  let from = 0;
  let nextDrop = 0;

  /** Copies the base rows before `end` that are not dropped. */
  const copyUntil = (end: number) => {
    while (from < end) {
      const drop = dropped[nextDrop];
      const stop = drop !== undefined && drop < end ? drop : end;
      if (stop > from) {
        const begin = base.starts[from]!;
        const length = base.starts[stop]! - begin;
        for (let i = from; i < stop; i++) {
          rows[row] = base.rows[i]!;
          starts[row++] = base.starts[i]! - begin + offset;
        }
        pieces.push(base.bytes.subarray(begin, begin + length));
        delta?.copy(begin, length);
        offset += length;
        from = stop;
      }
      if (from === drop) {
        from++;
        nextDrop++;
      }
    }
  };
  for (const insert of inserted) {
    copyUntil(insert.at);
    rows[row] = insert.row;
    starts[row++] = offset;
    pieces.push(insert.line);
    delta?.insert(insert.line);
    offset += insert.line.length;
    if (delta && delta.length > size / 2) delta = null;
  }
  copyUntil(base.rows.length);
  starts[count] = offset;
  const instructions = delta?.finish();
  return {
    version: { bytes: Buffer.concat(pieces, size), rows, starts },
    delta: instructions && instructions.length <= size / 2 ? instructions : null,
  };
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

function lowerBound(rows: readonly Row[], key: string): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows[middle]!.key < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

const byKey = (a: Row, b: Row) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function lineOf(name: string, node: TreeNode): Buffer {
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
