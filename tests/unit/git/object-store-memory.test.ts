/**
 * A publication of 10,000 changed files keeps each file deflated until the push (issue 18: a
 * long-lived worker within 256 MiB). What the store keeps must weigh about the deflated bytes, not
 * the shared buffers those bytes were cut from.
 */
import { createObjectStore, DEFLATED_SLAB_BYTES } from '../../../shared/git/object-store';

const FILES = 2_000;

/** A file of about 1 KiB, as a Kubernetes object's YAML is. */
const contentOf = (i: number) =>
  `name: obj-${i}\n${Array.from({ length: 30 }, (_, k) => `key-${k}: ${(i * 7919 + k * 104729) % 1000003}`).join('\n')}\n`;

test('the store holds about its deflated bytes, however the files were allocated', async () => {
  const store = createObjectStore();
  for (let i = 0; i < FILES; i++) store.add('blob', Buffer.from(contentOf(i)));
  let deflatedBytes = 0;
  // every distinct memory block behind the kept bytes is held as long as the store is
  const blocks = new Set<ArrayBufferLike>();
  for (const [, object] of await store.objects()) {
    deflatedBytes += object.deflated.length;
    blocks.add(object.deflated.buffer);
  }
  const retained = [...blocks].reduce((total, block) => total + block.byteLength, 0);
  expect(store.size).toBe(FILES);
  expect(retained).toBeLessThanOrEqual(deflatedBytes * 1.25 + DEFLATED_SLAB_BYTES);
});
