/**
 * A publication of 10,000 changed files keeps each file deflated until the push (issue 18: a
 * long-lived worker within 256 MiB), and a cluster's first snapshot of 100,000 files keeps them all
 * (issue 30: the host within 400 MB). What the store keeps must weigh about the deflated bytes, not
 * the shared buffers those bytes were cut from, nor a record and a buffer per object beside them;
 * and the pack framed from it must not hold a piece per object.
 */
import { encodePack, PACK_CHUNK_BYTES } from '../../../shared/git/encode-pack';
import { createObjectStore, DEFLATED_SLAB_BYTES } from '../../../shared/git/object-store';
import { heldBytes, objectText } from '../../support/held-bytes';

const FILES = 2_000;

const contentOf = objectText;

test('the store holds about its deflated bytes, however the files were allocated', async () => {
  const store = createObjectStore();
  for (let i = 0; i < FILES; i++) store.add('blob', Buffer.from(contentOf(i)));
  let deflatedBytes = 0;
  // every distinct memory block behind the kept bytes is held as long as the store is
  const blocks = new Set<ArrayBufferLike>();
  for await (const [, object] of store.objects()) {
    deflatedBytes += object.deflated.length;
    blocks.add(object.deflated.buffer);
  }
  const retained = [...blocks].reduce((total, block) => total + block.byteLength, 0);
  expect(store.size).toBe(FILES);
  expect(retained).toBeLessThanOrEqual(deflatedBytes * 1.25 + DEFLATED_SLAB_BYTES);
});

describe("a first snapshot's objects, stored and packed", () => {
  const OBJECTS = 20_000;
  // the oid beside each object is one 40-character string (56 bytes) and its entry in the store's
  // index; a record and a buffer view per object, as the store kept before, are 150 bytes more
  const OVERHEAD_PER_OBJECT = 160;

  it('given 20,000 files stored, then the store holds its deflated bytes and at most 160 bytes more an object', async () => {
    const before = heldBytes();
    const store = createObjectStore();
    for (let i = 0; i < OBJECTS; i++) store.add('blob', Buffer.from(contentOf(i)));
    let deflatedBytes = 0;
    for await (const [, { deflated }] of store.objects()) deflatedBytes += deflated.length;
    const held = heldBytes() - before;
    expect(store.size).toBe(OBJECTS);
    expect(held - deflatedBytes).toBeLessThanOrEqual(OBJECTS * OVERHEAD_PER_OBJECT + DEFLATED_SLAB_BYTES);
  });

  it('given them packed, then the pack is framed in chunks as it is read, and only its index is held beside the store', async () => {
    const store = createObjectStore();
    for (let i = 0; i < OBJECTS; i++) store.add('blob', Buffer.from(contentOf(i)));
    // the first pack compiles the framing code: that is not held for the objects
    const warm = createObjectStore();
    warm.add('blob', Buffer.from(contentOf(0)));
    for await (const _ of (await encodePack({ store: warm })).pack);
    for await (const _ of store.objects());
    const before = heldBytes();
    const { pack, idx } = await encodePack({ store });
    const held = heldBytes() - before;
    // the index: 28 bytes an object (its SHA-1, CRC and offset); a header and a view of each
    // object's bytes held as pieces of the pack, as before, are about 190 bytes an object more.
    // 64 bytes an object of room: what the heap holds besides (compiled code, feedback) moves by a
    // few hundred KB between runs on a loaded machine
    expect(held).toBeLessThanOrEqual(idx.length + OBJECTS * 64);
    let pieces = 0;
    let packBytes = 0;
    for await (const piece of pack) {
      pieces++;
      packBytes += piece.length;
    }
    expect(pieces).toBeLessThanOrEqual(Math.ceil(packBytes / PACK_CHUNK_BYTES) * 2);
    expect(store.size).toBe(OBJECTS);
  });
});
