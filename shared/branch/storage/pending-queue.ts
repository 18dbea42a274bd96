import { type ChangeOrder, expandOrder } from '../change-order';
import type { PendingWrite, PruneMode, StoredWrite } from '../model';
import type { BranchState } from '../state';
import { toMs } from '../time';
import { releaseOrigin, reprunedOrigin } from './origins';
import {
  changePaths,
  expandWrite,
  storedBytes,
  storedDecidedAt,
  storedItems,
  storedWriteId,
  storeWrite,
} from './writes';

/**
 * The pending writes with what must stay consistent with them: their origins' reference counts and
 * the budget totals. Changed only here, so no caller can move one without the others.
 */
export type PendingQueue = Pick<BranchState, 'pending' | 'origins' | 'pendingBytes' | 'pendingItems'>;

/** The queue with `write` stored after the others. */
export function appendWrite<Q extends PendingQueue>(
  queue: Q,
  write: PendingWrite,
  order?: readonly string[],
): Q {
  const { stored, origins } = storeWrite(queue.origins, write);
  if (order && order.length === stored.ch?.length && order.some((key) => key !== '')) stored.ord = [...order];
  return {
    ...queue,
    pending: [...queue.pending, stored],
    origins,
    pendingBytes: queue.pendingBytes + write.bytes,
    pendingItems: queue.pendingItems + write.items,
  };
}

/** The queue without the writes `writeIds` names; the very same queue when it holds none of them. */
export function removeWrites<Q extends PendingQueue>(queue: Q, writeIds: ReadonlySet<string>): Q {
  if (writeIds.size === 0) return queue;
  let bytes = queue.pendingBytes;
  let items = queue.pendingItems;
  let origins = queue.origins;
  const pending: StoredWrite[] = [];
  for (const write of queue.pending) {
    if (writeIds.has(storedWriteId(write))) {
      bytes -= storedBytes(write);
      items -= storedItems(write);
      origins = releaseOrigin(origins, write.by);
    } else {
      pending.push(write);
    }
  }
  if (pending.length === queue.pending.length) return queue;
  return { ...queue, pending, origins, pendingBytes: bytes, pendingItems: items };
}

/** The queue with the writes `writeIds` names published under `prune` from now on. */
export function tightenPrune<Q extends PendingQueue>(
  queue: Q,
  writeIds: readonly string[],
  prune: PruneMode,
): Q {
  const ids = new Set(writeIds);
  let origins = queue.origins;
  const pending = queue.pending.map((write) => {
    if (!ids.has(storedWriteId(write))) return write;
    const moved = reprunedOrigin(origins, write.by, prune);
    if (moved.origins === origins) return write;
    origins = moved.origins;
    return { ...write, by: moved.by };
  });
  return { ...queue, pending, origins };
}

type WithInFlight = Pick<BranchState, 'pending' | 'origins' | 'publication'>;

function inFlight(state: Pick<WithInFlight, 'pending' | 'publication'>): StoredWrite[] {
  return state.pending.slice(0, state.publication.inFlight?.writes ?? 0);
}

/** The ids of the pending writes the attempt in flight carries, in order. */
export function inFlightWriteIds(state: Pick<WithInFlight, 'pending' | 'publication'>): string[] {
  return inFlight(state).map(storedWriteId);
}

/** The pending writes the attempt in flight carries, as the Git layer receives them. */
export function inFlightWrites(state: WithInFlight): PendingWrite[] {
  return inFlight(state).map((stored) => expandWrite(state.origins, stored));
}

/** The branch's pending writes in publication order, as the Git layer receives them. */
export function pendingWrites(queue: Pick<PendingQueue, 'pending' | 'origins'>): PendingWrite[] {
  return queue.pending.map((stored) => expandWrite(queue.origins, stored));
}

/** A pending order, with where its write stands in the `pending` array the index was built for. */
interface OrderEntry {
  order: ChangeOrder;
  writeId: string;
  at: number;
  stored: StoredWrite;
}

const orderIndexes = new WeakMap<readonly StoredWrite[], Map<string, OrderEntry>>();
// The index of the longest queue seen, shared by the queues that extend it (a write appended at a
// time, the common case): each costs only its new writes, not a scan of the whole backlog.
let growing: { pending: readonly StoredWrite[]; index: Map<string, OrderEntry> } | undefined;

function orderKey(target: string, path: string): string {
  return `${target}\n${path}`;
}

/**
 * The newest pending order of a target's path that a pending window write holds, with the write
 * that holds it: what a late change must not overwrite.
 */
export function pendingOrder(
  queue: Pick<PendingQueue, 'pending' | 'origins'>,
  target: string,
  path: string,
): { order: ChangeOrder; writeId: string } | undefined {
  const key = orderKey(target, path);
  const entry = indexOf(queue).get(key);
  if (!entry || (entry.at < queue.pending.length && queue.pending[entry.at] === entry.stored)) return entry;
  // A shared index answered with a write this (older) queue does not hold: ask its own.
  const own = indexWrites(queue, new Map(), 0);
  orderIndexes.set(queue.pending, own);
  return own.get(key);
}

function indexOf(queue: Pick<PendingQueue, 'pending' | 'origins'>): Map<string, OrderEntry> {
  const known = orderIndexes.get(queue.pending);
  if (known) return known;
  const last = growing?.pending;
  const extends_ =
    last !== undefined &&
    last.length > 0 &&
    queue.pending.length > last.length &&
    queue.pending[0] === last[0] &&
    queue.pending[last.length - 1] === last[last.length - 1];
  const index = extends_ ? indexWrites(queue, growing!.index, last.length) : indexWrites(queue, new Map(), 0);
  orderIndexes.set(queue.pending, index);
  growing = { pending: queue.pending, index };
  return index;
}

function indexWrites(
  queue: Pick<PendingQueue, 'pending' | 'origins'>,
  index: Map<string, OrderEntry>,
  from: number,
): Map<string, OrderEntry> {
  for (let at = from; at < queue.pending.length; at++) {
    const stored = queue.pending[at]!;
    if (!stored.ord || !stored.ch) continue;
    const decidedAtMs = toMs(storedDecidedAt(stored));
    const writeId = storedWriteId(stored);
    const target = queue.origins[stored.by]?.target ?? '';
    changePaths(stored.ch).forEach((path, change) => {
      const key = stored.ord?.[change];
      if (key !== undefined && key !== '')
        index.set(orderKey(target, path), { order: expandOrder(key, decidedAtMs), writeId, at, stored });
    });
  }
  return index;
}
