/**
 * The orders of published run changes, kept beside the payloads (the feed memory's store): a
 * publication reads the record once and adds to the record it read; another writer's record in
 * between (an attempt run twice: activities are at-least-once) is read again and merged, never
 * overwritten.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunMemory } from '../../../../shared/app/activities/published-run-memory';
import { publishedKey } from '../../../../shared/app/entity/published-orders';
import type { FeedMemoryStore } from '../../../../shared/app/eventhub/feed-memory';
import { createFileFeedMemory } from '../../../../shared/payloads/feed-memory-store';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'ks-run-memory-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** The store, counting its reads. */
function counted(store: FeedMemoryStore): FeedMemoryStore & { reads: number } {
  const wrapped = {
    reads: 0,
    read: (key: string) => {
      wrapped.reads += 1;
      return store.read(key);
    },
    write: store.write.bind(store),
  };
  return wrapped;
}

const AT = Date.parse('2026-12-03T12:00:00Z');
const change = (path: string, resourceVersion: string) => ({
  writeId: 'w1',
  target: 'prod',
  path,
  order: { resourceVersion, atMs: AT },
});

test('a publication reads the record once, and adds its orders to what it read', async () => {
  const store = counted(createFileFeedMemory({ folder }));
  const first = await readRunMemory(store, 'repo/main');
  await first.remember(AT, [change('a.yaml', '5')], { w1: 'c1' });
  const second = await readRunMemory(store, 'repo/main');
  await second.remember(AT + 1_000, [change('b.yaml', '7')], { w1: 'c2' });
  expect(store.reads).toBe(2);
  const third = await readRunMemory(store, 'repo/main');
  expect(third.orderOf(publishedKey('prod', 'a.yaml'))?.resourceVersion).toBe('5');
  expect(third.orderOf(publishedKey('prod', 'b.yaml'))?.resourceVersion).toBe('7');
});

test("another writer's record in between is read again and merged", async () => {
  const store = counted(createFileFeedMemory({ folder }));
  const slow = await readRunMemory(store, 'repo/main');
  const fast = await readRunMemory(store, 'repo/main');
  await fast.remember(AT, [change('a.yaml', '5')], { w1: 'c1' });
  await slow.remember(AT, [change('b.yaml', '7')], { w1: 'c1' });
  // two reads to start, and the slow one's again after its swap found the record changed
  expect(store.reads).toBe(3);
  const after = await readRunMemory(store, 'repo/main');
  expect(after.orderOf(publishedKey('prod', 'a.yaml'))?.resourceVersion).toBe('5');
  expect(after.orderOf(publishedKey('prod', 'b.yaml'))?.resourceVersion).toBe('7');
});

test('a change whose write got no commit is not remembered', async () => {
  const store = createFileFeedMemory({ folder });
  const memory = await readRunMemory(store, 'repo/main');
  await memory.remember(AT, [change('a.yaml', '5')], {});
  const after = await readRunMemory(store, 'repo/main');
  expect(after.orderOf(publishedKey('prod', 'a.yaml'))).toBeUndefined();
});

test("a branch's next publication takes the record its last one wrote without parsing it again", async () => {
  const store = createFileFeedMemory({ folder });
  const parse = jest.spyOn(JSON, 'parse');
  try {
    const first = await readRunMemory(store, 'repo/main');
    await first.remember(AT, [change('a.yaml', '5')], { w1: 'c1' });
    parse.mockClear();
    const second = await readRunMemory(store, 'repo/main');
    expect(parse).not.toHaveBeenCalled();
    expect(second.orderOf(publishedKey('prod', 'a.yaml'))?.resourceVersion).toBe('5');
    // another branch's record, then this one's changed by another writer: each parsed as read
    await (await readRunMemory(store, 'repo/other')).remember(AT, [change('b.yaml', '1')], { w1: 'c1' });
    const elsewhere = await readRunMemory(store, 'repo/main');
    await elsewhere.remember(AT, [change('c.yaml', '2')], { w1: 'c1' });
    await (await readRunMemory(store, 'repo/other')).remember(AT, [change('d.yaml', '3')], { w1: 'c1' });
    parse.mockClear();
    const third = await readRunMemory(store, 'repo/main');
    expect(parse).toHaveBeenCalledTimes(1);
    expect(third.orderOf(publishedKey('prod', 'c.yaml'))?.resourceVersion).toBe('2');
  } finally {
    parse.mockRestore();
  }
});
