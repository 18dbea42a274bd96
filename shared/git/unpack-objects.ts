import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';

/** One object of a pack: its SHA, type, inflated bytes, and where its entry starts and ends in the pack. */
export type PackObject = {
  oid: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  data: Buffer;
  offset: number;
  end: number;
};

const TYPES = ['', 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;

type Entry = {
  offset: number;
  end: number;
  typeCode: number;
  data: Buffer;
  baseOffset?: number;
  baseOid?: string;
  oid?: string;
  type?: string;
};

function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let i = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[i++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (varint() !== base.length) throw new Error('delta base size mismatch');
  const out = Buffer.allocUnsafe(varint());
  let at = 0;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) offset += delta[i++]! * 2 ** (8 * b);
      for (let b = 0; b < 3; b++) if (op & (0x10 << b)) size += delta[i++]! * 2 ** (8 * b);
      if (size === 0) size = 0x10000;
      at += base.copy(out, at, offset, offset + size);
    } else if (op > 0) {
      at += delta.copy(out, at, i, i + op);
      i += op;
    } else throw new Error('invalid delta opcode 0');
  }
  if (at !== out.length) throw new Error('delta result size mismatch');
  return out;
}

/**
 * Reads every object of a pack with node's native zlib and SHA-1 (what `git index-pack` does; the
 * isomorphic-git indexer does it in JavaScript, several times slower): each object is inflated once
 * and deltas (ofs and ref, no thin packs) are resolved against their bases. Throws on a malformed or
 * truncated pack.
 */
export function unpackObjects({ pack }: { pack: Buffer }): { objects: PackObject[]; packHash: Buffer } {
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') throw new Error('not a pack');
  const trailer = pack.subarray(pack.length - 20);
  const packHash = createHash('sha1')
    .update(pack.subarray(0, pack.length - 20))
    .digest();
  if (!packHash.equals(trailer)) throw new Error('pack checksum mismatch (truncated?)');
  const count = pack.readUInt32BE(8);
  const entries: Entry[] = [];
  const byOffset = new Map<number, Entry>();
  let pos = 12;
  for (let n = 0; n < count; n++) {
    const offset = pos;
    let byte = pack[pos++]!;
    const typeCode = (byte >> 4) & 7;
    let size = byte & 0x0f;
    for (let shift = 4; byte & 0x80; shift += 7) {
      byte = pack[pos++]!;
      size += (byte & 0x7f) * 2 ** shift;
    }
    const entry: Entry = { offset, end: 0, typeCode, data: Buffer.alloc(0) };
    if (typeCode === OFS_DELTA) {
      byte = pack[pos++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = pack[pos++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      entry.baseOffset = offset - distance;
    } else if (typeCode === REF_DELTA) {
      entry.baseOid = pack.toString('hex', pos, pos + 20);
      pos += 20;
    }
    // an output chunk of the object's own size: the default 16 KiB chunk per object is what makes
    // 10,000 small inflates weigh 150 MiB until the next GC
    const { buffer, engine } = inflateSync(pack.subarray(pos, pack.length - 20), {
      info: true,
      chunkSize: Math.max(64, size),
    }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    entry.data = buffer;
    pos += engine.bytesWritten;
    entry.end = pos;
    entries.push(entry);
    byOffset.set(offset, entry);
  }
  if (pos !== pack.length - 20) throw new Error('pack has trailing bytes');

  const byOid = new Map<string, Entry>();
  const hashOf = (type: string, data: Buffer) =>
    createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');
  for (const entry of entries) {
    if (entry.typeCode >= 1 && entry.typeCode <= 4) {
      entry.type = TYPES[entry.typeCode]!;
      entry.oid = hashOf(entry.type, entry.data);
      byOid.set(entry.oid, entry);
    }
  }
  const resolve = (entry: Entry, depth = 0): Entry => {
    if (entry.oid) return entry;
    if (depth > 10_000) throw new Error('delta chain too long');
    const base = entry.baseOffset !== undefined ? byOffset.get(entry.baseOffset) : byOid.get(entry.baseOid!);
    if (!base) throw new Error('delta base missing from the pack');
    const resolved = resolve(base, depth + 1);
    entry.data = applyDelta(resolved.data, entry.data);
    entry.type = resolved.type!;
    entry.oid = hashOf(entry.type, entry.data);
    byOid.set(entry.oid, entry);
    return entry;
  };
  // ref-deltas may name a base that itself is a delta later in the pack: resolve until done
  for (let pending = entries.filter((e) => !e.oid); pending.length > 0; ) {
    const before = pending.length;
    pending = pending.filter((e) => {
      if (e.baseOid !== undefined && !byOid.has(e.baseOid)) return true;
      resolve(e);
      return false;
    });
    if (pending.length === before) throw new Error('delta base missing from the pack');
  }
  return {
    objects: entries.map((e) => ({
      oid: e.oid!,
      type: e.type as PackObject['type'],
      data: e.data,
      offset: e.offset,
      end: e.end,
    })),
    packHash,
  };
}
