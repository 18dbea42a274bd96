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
const memorySchema = z.object({
  v: z.literal(1),
  buckets: z.array(z.strictObject({ minute: z.string(), orders: z.record(z.string(), z.string()) })),
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

function keyOf(branchKey: string): string {
  return createHash('sha256').update(`published-runs\n${branchKey}`).digest('hex');
}

/** What `store` remembers of `branchKey`'s published run changes: an order by target and path. */
export async function readRunMemory(
  store: FeedMemoryStore,
  branchKey: string,
): Promise<(target: string, path: string) => ChangeOrder | undefined> {
  const record = await store.read(keyOf(branchKey));
  const memory = bucketsOf(record?.text);
  return (target, path) => rememberedOrder(memory, publishedKey(target, path));
}

const SWAP_TRIES = 5;

/** Adds the orders of `changes` whose write got a commit (`commits`) to `branchKey`'s memory, at `atMs`. */
export async function rememberRunChanges(
  store: FeedMemoryStore,
  branchKey: string,
  atMs: number,
  changes: readonly PublishedRunChange[],
  commits: Readonly<Record<string, string | null>>,
): Promise<void> {
  const orders: Record<string, string> = {};
  for (const change of changes)
    if (commits[change.writeId] !== undefined)
      orders[publishedKey(change.target, change.path)] = storedPublishedOrder(change.order, atMs);
  if (Object.keys(orders).length === 0) return;
  const key = keyOf(branchKey);
  for (let attempt = 0; attempt < SWAP_TRIES; attempt++) {
    const record = await store.read(key);
    const buckets = withPublishedOrders(bucketsOf(record?.text), atMs, orders);
    if (await store.write(key, JSON.stringify({ v: 1, buckets }), record?.tag)) return;
  }
  throw new Error(`the published run orders of ${branchKey} kept changing under ${SWAP_TRIES} writes`);
}
