/**
 * A delta's instructions come from the remote: a copy or an insert reaching past its base or past
 * the delta itself is a malformed pack, refused with its reason, never bytes read from beyond.
 * The delta format is git's (Documentation/gitformat-pack.txt, "Deltified representation"): two
 * size varints, then copy ops (MSB set: offset and size bytes selected by the low bits) and insert
 * ops (1–127 literal bytes).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { readPack } from '../../../shared/git/unpack-objects';

const OBJ_BLOB = 3;
const OBJ_OFS_DELTA = 6;

function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  for (let rest = size >> 4; rest > 0; rest >>= 7) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
  }
  return Buffer.from(bytes);
}

/** A pack of `base` as a blob and one ofs-delta on it with `delta` as its instructions. */
function packOf(base: string, delta: Buffer): Buffer {
  const first = Buffer.concat([entryHeader(OBJ_BLOB, base.length), deflateSync(base)]);
  // the offset back to the base: one byte suffices while the blob entry is under 128 bytes
  const second = Buffer.concat([
    entryHeader(OBJ_OFS_DELTA, delta.length),
    Buffer.from([first.length]),
    deflateSync(delta),
  ]);
  const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 2]);
  const body = Buffer.concat([header, first, second]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

const blobOid = (text: string) => createHash('sha1').update(`blob ${text.length}\0${text}`).digest('hex');
const objectsOf = (pack: Buffer) => {
  const seen: { oid: string; data: string }[] = [];
  readPack({ pack, visit: ({ oid, data }) => seen.push({ oid, data: data.toString() }) });
  return seen;
};

describe('deltas read from a pack', () => {
  it('resolves a copy and an insert to the object git would hash', () => {
    // base size 11, result size 6: copy 5 bytes from offset 0, insert "!"
    const objects = objectsOf(packOf('hello world', Buffer.from([11, 6, 0x90, 5, 1, 0x21])));
    expect(objects.map(({ data }) => data)).toEqual(['hello world', 'hello!']);
    expect(objects[1]!.oid).toBe(blobOid('hello!'));
  });

  it('refuses a copy reaching past the end of its base', () => {
    // copy 20 bytes from offset 5 of an 11-byte base
    expect(() => objectsOf(packOf('hello world', Buffer.from([11, 20, 0x91, 5, 20])))).toThrow(
      'delta copy beyond its base',
    );
  });

  it('refuses an insert longer than the delta holds', () => {
    // insert of 9 literal bytes, of which the delta carries 2
    expect(() => objectsOf(packOf('hello world', Buffer.from([11, 9, 9, 0x41, 0x42])))).toThrow(
      'delta insert beyond its end',
    );
  });

  it('refuses a result longer than its declared size', () => {
    // declares 3 bytes, then copies 5
    expect(() => objectsOf(packOf('hello world', Buffer.from([11, 3, 0x90, 5])))).toThrow(
      'delta result larger than it declares',
    );
  });
});
