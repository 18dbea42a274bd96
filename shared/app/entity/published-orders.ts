import * as crypto from 'node:crypto';
import type { BranchCommand, BranchFact, BranchState } from '../../branch';
import { type ChangeOrder, expandOrder, storeOrder, supersedes } from '../../branch/change-order';
import { pendingWrites, storedDecidedAt, storedWriteId } from '../../branch/storage';
import { REQUEST_MEMORY_MS } from './recent-requests';

/**
 * The order of every change the branch published recently, by target and path, so that a client
 * signal that arrives minutes late never replaces a newer change already in Git. On Azure Storage a
 * signal in flight when its partition moves comes back after the control queue's visibility
 * timeout (5 minutes; Azure/durabletask AzureStorageOrchestrationServiceSettings
 * `ControlQueueVisibilityTimeout`), taken then for the first time or again: by then the window
 * and the pending writes that would have refused it (`ChangeSkipped`) may be published and gone,
 * and its request id may be past the id memory. This memory holds what they held, for as long as
 * the id memory's span.
 *
 * Kept per minute of publication (the confirmation's time): `{minute: base36 epoch minute, orders:
 * {key: order}}`, where the key is 64 bits of SHA-256 of `target\npath` (11 base64url characters)
 * and the order is `change-order.ts`'s stored form relative to the minute. About 30 bytes a path.
 */
export interface PublishedOrders {
  minute: string;
  orders: Record<string, string>;
}

const MINUTE_MS = 60_000;

// `crypto.hash` (Node 20.12+): a publication looks up every change it publishes, and creating a Hash
// object costs more than hashing a path; earlier 20.x releases take the incremental path
const oneShot: ((algorithm: string, data: string, encoding: 'buffer') => Buffer) | undefined =
  typeof crypto.hash === 'function'
    ? (crypto.hash as (a: string, d: string, e: 'buffer') => Buffer)
    : undefined;

/** Where a memory keeps the order of `target`'s `path`: 64 bits of its SHA-256. */
export function publishedKey(target: string, path: string): string {
  const text = `${target}\n${path}`;
  const digest = oneShot
    ? oneShot('sha256', text, 'buffer')
    : crypto.createHash('sha256').update(text).digest();
  return digest.subarray(0, 8).toString('base64url');
}

/** The newest order `memory` holds under `key` (a {@link publishedKey}). */
export function rememberedOrder(
  memory: readonly PublishedOrders[] | undefined,
  key: string,
): ChangeOrder | undefined {
  let newest: ChangeOrder | undefined;
  for (const bucket of memory ?? []) {
    const stored = bucket.orders[key];
    if (stored === undefined) continue;
    const order = expandOrder(stored, Number.parseInt(bucket.minute, 36) * MINUTE_MS);
    if (!newest || supersedes(order, newest)) newest = order;
  }
  return newest;
}

/**
 * `commands` without the changes a newer published change of their path supersedes (a command
 * left with none is dropped). Only client signals pass through here: the driver's commands are in order.
 */
export function withoutSuperseded(
  memory: readonly PublishedOrders[] | undefined,
  commands: readonly BranchCommand[],
): BranchCommand[] {
  if (!memory || memory.length === 0) return [...commands];
  const kept: BranchCommand[] = [];
  for (const command of commands) {
    if (command.type !== 'AdmitChanges') {
      kept.push(command);
      continue;
    }
    const atMs = Date.parse(command.at);
    const changes = command.changes.filter((change) => {
      const published = rememberedOrder(memory, publishedKey(command.target, change.path));
      return !published || supersedes({ resourceVersion: change.resourceVersion, atMs }, published);
    });
    if (changes.length === command.changes.length) kept.push(command);
    else if (changes.length > 0) kept.push({ ...command, changes });
  }
  return kept;
}

/**
 * The memory after the operation that recorded `facts` on `before`: the orders of the writes each
 * `PublicationConfirmed` names added under its minute, minutes past the span forgotten.
 */
export function rememberPublished(
  memory: readonly PublishedOrders[] | undefined,
  before: BranchState,
  facts: readonly BranchFact[],
): PublishedOrders[] | undefined {
  let next = memory ? [...memory] : undefined;
  for (const fact of facts) {
    if (fact.type !== 'PublicationConfirmed') continue;
    const atMs = Date.parse(fact.at);
    const minuteMs = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    const published = new Set(Object.keys(fact.commits));
    const expanded = pendingWrites(before);
    const orders: Record<string, string> = {};
    before.pending.forEach((stored, index) => {
      if (!stored.ord || !published.has(storedWriteId(stored))) return;
      const write = expanded[index]!;
      const decidedMs = Date.parse(storedDecidedAt(stored));
      write.changes?.forEach((change, i) => {
        const stored_ = stored.ord?.[i];
        if (stored_ === undefined) return;
        orders[publishedKey(write.target, change.path)] = storeOrder(
          expandOrder(stored_, decidedMs),
          minuteMs,
        );
      });
    });
    next = withPublishedOrders(next, atMs, orders);
  }
  return next;
}

/**
 * `memory` with `orders` (by {@link publishedKey}, stored relative to the minute of `atMs`) added
 * under the minute of `atMs`, and minutes past the request-id memory's span forgotten.
 */
export function withPublishedOrders(
  memory: readonly PublishedOrders[] | undefined,
  atMs: number,
  orders: Record<string, string>,
): PublishedOrders[] {
  const minuteMs = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
  const minute = (minuteMs / MINUTE_MS).toString(36);
  const next = (memory ?? []).filter(
    (bucket) => Number.parseInt(bucket.minute, 36) * MINUTE_MS > atMs - REQUEST_MEMORY_MS,
  );
  if (Object.keys(orders).length === 0) return next;
  const last = next.at(-1);
  if (last?.minute === minute) next[next.length - 1] = { minute, orders: { ...last.orders, ...orders } };
  else next.push({ minute, orders });
  return next;
}

/** Where {@link withPublishedOrders} stores an order published at `atMs`: relative to its minute. */
export function storedPublishedOrder(order: ChangeOrder, atMs: number): string {
  return storeOrder(order, Math.floor(atMs / MINUTE_MS) * MINUTE_MS);
}
