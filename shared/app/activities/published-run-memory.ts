import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ChangeOrder } from '../../branch/change-order';
import {
  type PublishedOrders,
  publishedKey,
  rememberedOrder,
  storedPublishedOrder,
  withPublishedOrders,
} from '../entity/published-orders';
import type { FeedMemoryStore } from '../eventhub/feed-memory';
import type { PublishedRunChange } from './expand-runs';

/**
 * The orders of the run changes a branch published recently, beside the payloads (the feed memory's
 * store, one record per branch), as the entity keeps those of its inline changes
 * (`published-orders.ts`, the same form and span): a client signal minutes late must not replace a
 * newer change already in Git, and only the publish activity reads a run's changes. Written after a
 * publication landed, read before the next one; one attempt of a branch is in flight at a time, and
 * a concurrent writer (an attempt run twice) is merged, never overwritten.
 */
const orders = z.custom<Record<string, string>>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((order) => typeof order === 'string'),
  'orders must map keys to strings',
);
// the orders are checked in one pass: a record holds a path a change published in the last minutes
// (40,000 after a burst), and a schema per entry cost a third of reading it
const memorySchema = z.object({
  v: z.literal(1),
  buckets: z.array(z.strictObject({ minute: z.string(), orders })),
});

/** The buckets a record holds; a record that does not parse (a later version's) counts as none. */
function bucketsOf(text: string | undefined): PublishedOrders[] {
  if (!text) return [];
  try {
    return memorySchema.parse(JSON.parse(text)).buckets;
  } catch {
    return [];
  }
}

/**
 * The record this thread wrote last, parsed: a branch's next publication reads back the record its
 * last one wrote, whose orders (15 minutes of published paths, 40,000 after a burst) cost more to
 * parse and check than to compare.
 */
let last: { key: string; text: string; buckets: PublishedOrders[] } | undefined;

function parsedOnce(key: string, record: { text: string } | undefined): PublishedOrders[] {
  if (record && last?.key === key && last.text === record.text) return last.buckets;
  return bucketsOf(record?.text);
}

function keyOf(branchKey: string): string {
  return createHash('sha256').update(`published-runs\n${branchKey}`).digest('hex');
}

/** A branch's run memory as one publication reads it, and adds to it once the publication landed. */
export interface RunMemory {
  /** The newest order remembered under `key` (a {@link publishedKey}). */
  orderOf(key: string): ChangeOrder | undefined;
  /** Adds the orders of `changes` whose write got a commit (`commits`), at `atMs`. */
  remember(
    atMs: number,
    changes: readonly PublishedRunChange[],
    commits: Readonly<Record<string, string | null>>,
  ): Promise<void>;
}

const SWAP_TRIES = 5;

/**
 * What `store` remembers of `branchKey`'s published run changes. The record read here is the one
 * the publication adds to: it is read again only when another writer changed it meanwhile.
 */
export async function readRunMemory(store: FeedMemoryStore, branchKey: string): Promise<RunMemory> {
  const key = keyOf(branchKey);
  let record = await store.read(key);
  let memory = parsedOnce(key, record);
  return {
    orderOf: (orderKey) => rememberedOrder(memory, orderKey),
    async remember(atMs, changes, commits) {
      const added: Record<string, string> = {};
      for (const change of changes)
        if (commits[change.writeId] !== undefined)
          added[publishedKey(change.target, change.path)] = storedPublishedOrder(change.order, atMs);
      if (Object.keys(added).length === 0) return;
      for (let attempt = 0; attempt < SWAP_TRIES; attempt++) {
        if (attempt > 0) {
          record = await store.read(key);
          memory = parsedOnce(key, record);
        }
        const buckets = withPublishedOrders(memory, atMs, added);
        const text = JSON.stringify({ v: 1, buckets });
        if (await store.write(key, text, record?.tag)) {
          // the tag the next read will find is the store's to give: the next read parses it, or not
          last = { key, text, buckets };
          return;
        }
      }
      throw new Error(`the published run orders of ${branchKey} kept changing under ${SWAP_TRIES} writes`);
    },
  };
}
