/**
 * How the branch state stores what it holds: the open window's changes in hashed buckets, and the
 * pending writes in their compact form with a shared origins table. The rest of the branch decides
 * with these functions and never reads the encoding itself.
 */
export {
  appendWrite,
  inFlightWriteIds,
  inFlightWrites,
  type PendingQueue,
  pendingOrder,
  pendingWrites,
  removeWrites,
  tightenPrune,
} from './pending-queue';
export { admitRunToWindow, expandRun, runTotals } from './runs';
export { admitToWindow, changeIn, changesInOrder, emptyBuckets } from './window-changes';
export { storedDecidedAt, storedWriteId } from './writes';
