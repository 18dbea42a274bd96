/**
 * A publication's objects spilled to a file (issue 30: a cluster's first snapshot of 100,000 files
 * within the host's 400 MB): the store holds where each object lies, not its deflated bytes; the
 * pack framed from the file is the pack the memory store frames; the file holds nothing but the
 * deflated objects the pack carries to the remote; and nothing of it outlives the store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePack } from '../../../shared/git/encode-pack';
import {
  createObjectStore,
  DEFLATED_SLAB_BYTES,
  type ObjectStore,
  openSpillingObjectStore,
} from '../../../shared/git/object-store';
import { unpackObjects } from '../../../shared/git/unpack-objects';
import { openSpillFiles } from '../../support/git/open-spill-files';
import { heldBytes, objectText } from '../../support/held-bytes';

const contentOf = (i: number) => Buffer.from(objectText(i));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ks-spill-'));
});
afterEach(async () => {
  jest.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const NOISE = randomBytes(48 * 1024);
function fill(store: ObjectStore, files: number): void {
  for (let i = 0; i < files; i++) store.add('blob', contentOf(i));
  const baseBytes = contentOf(files + 1);
  const more = Buffer.from('more: 1\n');
  const base = store.add('blob', baseBytes);
  // git's delta: the base's size and the result's (varints), a copy of the whole base, an insert
  const varint = (n: number) => (n < 128 ? [n] : [0x80 | (n & 0x7f), n >> 7]);
  store.add('blob', Buffer.concat([baseBytes, more]), {
    base,
    instructions: Buffer.from([
      ...varint(baseBytes.length),
      ...varint(baseBytes.length + more.length),
      0x80 | 0x10 | 0x20,
      baseBytes.length & 0xff,
      baseBytes.length >> 8,
      more.length,
      ...more,
    ]),
  });
  // 100 KB of entries: deflated on the thread pool
  store.add(
    'tree',
    Buffer.from(Array.from({ length: 4000 }, (_, i) => `100644 f${i}\0${'x'.repeat(20)}`).join('')),
  );
  // 48 KB of noise: deflated here, larger than an eighth of a slab, kept whole
  store.add('blob', NOISE);
}

async function packOf(store: ObjectStore): Promise<Buffer> {
  const { pack } = await encodePack({ store });
  const pieces: Buffer[] = [];
  for await (const piece of pack) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

describe('a store spilling to a file', () => {
  it('given 20,000 files stored, then it holds at most 160 bytes an object and a slab, not their deflated bytes', async () => {
    const OBJECTS = 20_000;
    // the first store compiles the code: that is not held for the objects
    const warm = await openSpillingObjectStore({ spillDir: dir });
    warm.add('blob', contentOf(0));
    await packOf(warm);
    await warm.close();
    const before = heldBytes();
    const store = await openSpillingObjectStore({ spillDir: dir });
    for (let i = 0; i < OBJECTS; i++) store.add('blob', contentOf(i));
    let deflatedBytes = 0;
    for await (const [, { deflated }] of store.objects()) deflatedBytes += deflated.length;
    const held = heldBytes() - before;
    await store.close();
    // the deflated bytes alone are more than the bound: holding them fails it
    expect(deflatedBytes).toBeGreaterThan(OBJECTS * 160);
    expect(held).toBeLessThanOrEqual(OBJECTS * 160 + 2 * DEFLATED_SLAB_BYTES);
  });

  it('given the same objects as a store in memory, then its pack is byte for byte the same', async () => {
    const spilled = await openSpillingObjectStore({ spillDir: dir });
    const inMemory = createObjectStore();
    fill(spilled, 3_000);
    fill(inMemory, 3_000);
    try {
      const pack = await packOf(spilled);
      expect(pack.equals(await packOf(inMemory))).toBe(true);
      // framed twice (to the remote, then to the cache), it reads back the same both times
      expect((await packOf(spilled)).equals(pack)).toBe(true);
      expect(unpackObjects({ pack }).objects).toHaveLength(3_000 + 4);
    } finally {
      await spilled.close();
    }
  });

  it('given 20,000 files packed from it, then framing the pack twice reads them into one window a pass, not a buffer a window', async () => {
    const store = await openSpillingObjectStore({ spillDir: dir });
    try {
      for (let i = 0; i < 20_000; i++) store.add('blob', contentOf(i));
      for await (const _ of store.objects());
      let allocated = 0;
      const allocate = Buffer.allocUnsafeSlow;
      jest.spyOn(Buffer, 'allocUnsafeSlow').mockImplementation((size) => {
        allocated += size;
        return allocate(size);
      });
      // the pack's own chunks are new buffers as they are sent: as many bytes as the pack
      const packBytes = (await packOf(store)).length;
      // beside them one window for the hashing pass and one for the framing pass; a fresh window
      // each time the objects run past one would be twice the pack again
      expect(allocated).toBeLessThanOrEqual(packBytes + 4 * DEFLATED_SLAB_BYTES);
    } finally {
      await store.close();
    }
  });

  it('given objects stored, then its file holds their deflated bytes as the pack carries them, and nothing else', async () => {
    const store = await openSpillingObjectStore({ spillDir: dir });
    // small files and one kept whole: each deflated where it is added, so the file is in pack order
    for (let i = 0; i < 2_000; i++) store.add('blob', contentOf(i));
    store.add('blob', NOISE);
    const carried: Buffer[] = [];
    for await (const [, { deflated }] of store.objects()) carried.push(Buffer.from(deflated));
    const files = await openSpillFiles(dir);
    expect(files).toHaveLength(1);
    const spilled = await readFile(`/proc/self/fd/${files[0]!.fd}`);
    await store.close();
    expect(spilled.equals(Buffer.concat(carried))).toBe(true);
  });

  it('given it open, then its file is in no folder, and once closed it is gone', async () => {
    const store = await openSpillingObjectStore({ spillDir: join(dir, 'cache') });
    for (let i = 0; i < 2_000; i++) store.add('blob', contentOf(i));
    expect(await readdir(join(dir, 'cache'))).toEqual([]);
    expect(await openSpillFiles(dir)).toHaveLength(1);
    await store.close();
    expect(await openSpillFiles(dir)).toEqual([]);
    expect(() => store.add('blob', contentOf(5_000))).toThrow('closed');
  });
});
