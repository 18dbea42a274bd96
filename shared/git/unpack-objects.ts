import { createHash } from 'node:crypto';
import { framedOidOf, objectHeader, objectOidOf } from './blob-oid';
import { createDeltaBaseCache, type DeltaBaseCache } from './delta-base-cache';
import { createPackInflater } from './pack-inflater';

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
  /** Where the entry's zlib stream starts; `end` is where it ends. */
  dataStart: number;
  end: number;
  typeCode: number;
  /** The inflated size the entry's header gives. */
  size: number;
  baseOffset?: number;
  baseOid?: string;
  oid?: string;
  type?: PackObject['type'];
};

/**
 * `base` with `delta`'s instructions applied, framed: the result's bytes follow the header Git hashes
 * (`<type> <size>\0`) in one buffer, so its SHA is taken without copying it behind one.
 */
function applyDelta(base: Buffer, delta: Buffer, type: PackObject['type']): { framed: Buffer; data: Buffer } {
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
  const size = varint();
  // a buffer of its own (the delta base cache keeps results, and a slice of node's shared pool
  // would be copied out of it there), the header before the bytes
  const header = objectHeader(type, size);
  const framed = Buffer.allocUnsafeSlow(header.length + size);
  // a header is a dozen ASCII characters: a loop costs less than Buffer#write's encoding path
  for (let c = 0; c < header.length; c++) framed[c] = header.charCodeAt(c);
  const out = framed.subarray(header.length);
  let at = 0;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      // unrolled as git's patch-delta.c reads them: the op's low bits say which offset and size bytes follow
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset = delta[i++]!;
      if (op & 0x02) offset |= delta[i++]! << 8;
      if (op & 0x04) offset |= delta[i++]! << 16;
      if (op & 0x08) offset = (offset | (delta[i++]! << 24)) >>> 0;
      if (op & 0x10) size = delta[i++]!;
      if (op & 0x20) size |= delta[i++]! << 8;
      if (op & 0x40) size |= delta[i++]! << 16;
      if (size === 0) size = 0x10000;
      if (offset + size > base.length) throw new Error('delta copy beyond its base');
      if (at + size > out.length) throw new Error('delta result larger than it declares');
      // a pack of small similar files copies a dozen bytes at a time, 25 copies a delta: below a
      // few hundred bytes a loop costs less than a view and a TypedArray#set
      if (size > 256) {
        out.set(base.subarray(offset, offset + size), at);
        at += size;
      } else for (let from = offset, end = offset + size; from < end; ) out[at++] = base[from++]!;
    } else if (op > 0) {
      if (i + op > delta.length) throw new Error('delta insert beyond its end');
      if (at + op > out.length) throw new Error('delta result larger than it declares');
      // at most 127 bytes: a loop costs less than a Buffer#copy call's checks
      for (let end = i + op; i < end; ) out[at++] = delta[i++]!;
    } else throw new Error('invalid delta opcode 0');
  }
  if (at !== out.length) throw new Error('delta result size mismatch');
  return { framed, data: out };
}

/**
 * Reads every object of a pack with node's native zlib and SHA-1 (what `git index-pack` does; the
 * isomorphic-git indexer does it in JavaScript, several times slower), handing each to `visit` in
 * turn: each object is inflated once and deltas (ofs and ref, no thin packs) are resolved against
 * their bases. No object's bytes are kept beyond `visit` except in `bases`, bounded by bytes: a
 * cold fetch of a large branch then holds its pack and a bounded slice of it inflated, not every
 * file of the branch inflated at once. Throws on a malformed or truncated pack.
 */
export function readPack({
  pack,
  visit,
  bases = createDeltaBaseCache(),
}: {
  pack: Buffer;
  visit: (object: PackObject) => void;
  bases?: DeltaBaseCache;
}): { packHash: Buffer } {
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') throw new Error('not a pack');
  const trailer = pack.subarray(pack.length - 20);
  const packHash = createHash('sha1')
    .update(pack.subarray(0, pack.length - 20))
    .digest();
  if (!packHash.equals(trailer)) throw new Error('pack checksum mismatch (truncated?)');
  const count = pack.readUInt32BE(8);
  const byOffset = new Map<number, Entry>();
  /**
   * Entries by SHA, for ref-deltas only: made when the first one is met (from the entries read so
   * far), as most packs have none and 100,000 keys of 40 characters are a cost of their own.
   */
  let byOid: Map<string, Entry> | undefined;
  const byOidNow = () => {
    byOid ??= new Map([...byOffset.values()].filter((e) => e.oid !== undefined).map((e) => [e.oid!, e]));
    return byOid;
  };
  const inflater = createPackInflater();
  try {
    /**
     * An entry's stored bytes: a delta's instructions in the inflater's reused output (valid until
     * the next inflate), a whole object in a buffer of its own (kept as a delta base).
     */
    const inflateEntry = (entry: Entry, end: number) =>
      entry.typeCode >= OFS_DELTA
        ? inflater.inflate(pack, entry.dataStart, end, entry.size)
        : inflater.inflateOwn(pack, entry.dataStart, end, entry.size);
    /** The entry whose stored bytes were inflated last (by the scan, or again). */
    let heldOffset = -1;
    let held: Buffer = Buffer.alloc(0);
    const storedBytes = (entry: Entry): Buffer => {
      if (heldOffset !== entry.offset) {
        held = inflateEntry(entry, entry.end).data;
        heldOffset = entry.offset;
      }
      return held;
    };
    const baseOf = (entry: Entry) =>
      entry.baseOffset !== undefined ? byOffset.get(entry.baseOffset) : byOidNow().get(entry.baseOid!);
    /**
     * Whether the entry's object can be read now: a whole object, or a delta whose base was read
     * (its SHA known), which held for the base's own base in turn. A ref-delta may name a later object.
     */
    const resolvable = (entry: Entry): boolean =>
      entry.typeCode < OFS_DELTA || baseOf(entry)?.oid !== undefined;
    /**
     * The entry's object bytes (its type and SHA set on the way): from `bases`, else from its stored
     * bytes (held when the scan just inflated it).
     */
    const dataOf = (entry: Entry, depth = 0): Buffer => {
      const cached = bases.get(entry.offset);
      if (cached) return cached;
      if (depth > 10_000) throw new Error('delta chain too long');
      let data: Buffer;
      let framed: Buffer | undefined;
      if (entry.typeCode >= OFS_DELTA) {
        const base = baseOf(entry);
        if (!base) throw new Error('delta base missing from the pack');
        // the base first: reading it may inflate other entries over this one's instructions
        const baseData = dataOf(base, depth + 1);
        entry.type = base.type!;
        ({ framed, data } = applyDelta(baseData, storedBytes(entry), entry.type));
      } else data = storedBytes(entry);
      if (!entry.oid) {
        entry.oid = framed ? framedOidOf(framed) : objectOidOf(entry.type!, data);
        byOid?.set(entry.oid, entry);
      }
      bases.set(entry.offset, data);
      return data;
    };
    const emit = (entry: Entry) => {
      const data = dataOf(entry);
      visit({ oid: entry.oid!, type: entry.type!, data, offset: entry.offset, end: entry.end });
    };
    const deferred: Entry[] = [];
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
      const entry: Entry = { offset, dataStart: 0, end: 0, typeCode, size };
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
      } else if (typeCode >= 1 && typeCode <= 4) entry.type = TYPES[typeCode] as PackObject['type'];
      else throw new Error(`unknown pack object type ${typeCode}`);
      entry.dataStart = pos;
      const inflated = inflateEntry(entry, pack.length - 20);
      held = inflated.data;
      heldOffset = offset;
      pos += inflated.consumed;
      entry.end = pos;
      byOffset.set(offset, entry);
      if (resolvable(entry)) emit(entry);
      else deferred.push(entry);
    }
    if (pos !== pack.length - 20) throw new Error('pack has trailing bytes');
    // ref-deltas may name a base that itself is a delta later in the pack: resolve until done
    for (let pending = deferred; pending.length > 0; ) {
      const before = pending.length;
      pending = pending.filter((entry) => {
        if (!resolvable(entry)) return true;
        emit(entry);
        return false;
      });
      if (pending.length === before) throw new Error('delta base missing from the pack');
    }
  } finally {
    inflater.close();
  }
  return { packHash };
}

/** Every object of a pack with its bytes, all at once (see readPack): for small packs only. */
export function unpackObjects({ pack }: { pack: Buffer }): { objects: PackObject[]; packHash: Buffer } {
  const objects: PackObject[] = [];
  const { packHash } = readPack({ pack, visit: (object) => objects.push(object) });
  return { objects, packHash };
}
