import type { PublicationStatus } from '../../branch';
import type { BranchEntityState } from '../entity/branch-operations';

/** The most one entity's state may hold on the Durable Task Scheduler (Azure Storage allows more). */
export const ENTITY_STATE_LIMIT_BYTES = 1024 * 1024;

/**
 * Intake stops while the branch's last known state holds this much, as stored (below): a quarter of
 * the limit is left for what that reading cannot see (requests admitted on the same reading, a
 * second's worth at the admission cache's age: 400 changes of 500 bytes, 200 KB) and for the
 * records a publication adds before it frees the pending writes.
 */
export const STATE_ROOM_BYTES = 768 * 1024;

/**
 * What the extension's scheduler state adds around the escaped state:
 * `{"exists":true,"state":` … `,"sorter":{}}` (azure-functions-durable-extension
 * src/WebJobs.Extensions.DurableTask/EntityScheduler/SchedulerState.cs).
 */
const SCHEDULER_STATE_BYTES = 36;

/**
 * What one admitted change adds to the state besides its path, at most: its window entry (the
 * payload reference, 75 characters; a resource version of up to 64; the bytes, order and receipt
 * numbers; quotes and commas). A window's write moved to the pending queue is stored smaller.
 */
export const CHANGE_STATE_BYTES = 200;

/**
 * What one run of changes adds to the state at most, whatever its length: its tuple in the window
 * (the batch reference, 70 characters, four numbers) and, when it closes its window, the write
 * that carries it (id, time, origin, counts), escaped as the backend stores it.
 */
export const RUN_STATE_BYTES = 300;

/** What one save adds at most: its record (a message of up to 1,024 characters, author, request, receipt). */
export const SAVE_STATE_BYTES = 2048;

const measured = new WeakMap<BranchEntityState, number>();

/**
 * The bytes `state` takes as the backend stores it: the extension keeps an entity's state as a
 * JSON string inside its scheduler state (`SchedulerState.state` is a `string`), so every quote
 * and backslash of the state's JSON is escaped (a branch state is about 5% larger so). Measured
 * once per state read: the HTTP layer reads a branch through a cache of one reading a second, so
 * this costs two serializations a second per branch, not one a request.
 */
export function storedStateBytes(state: BranchEntityState): number {
  const known = measured.get(state);
  if (known !== undefined) return known;
  const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(state))) + SCHEDULER_STATE_BYTES;
  measured.set(state, bytes);
  return bytes;
}

/** What admitting changes at `paths` adds to the state at most. */
export function changesStateBytes(paths: readonly string[]): number {
  let bytes = 0;
  for (const path of paths) bytes += Buffer.byteLength(path) + CHANGE_STATE_BYTES;
  return bytes;
}

/** Whether the branch, as last read, has room in its durable state for `addedBytes` more. */
export function stateHasRoom(state: BranchEntityState, addedBytes: number): boolean {
  return storedStateBytes(state) + addedBytes <= STATE_ROOM_BYTES;
}

// Nothing scheduled frees room (a publication in flight, or nothing pending yet): look again shortly.
const BUSY_RETRY_SECONDS = 5;

/** When held work may next be freed: at the next publication attempt while Git fails, else when the open window closes. */
export function secondsUntilRoomFrees(status: PublicationStatus, at: string): number {
  const next = status.retryAt ?? (status.window.open ? status.window.closesAt : undefined);
  if (next === undefined) return BUSY_RETRY_SECONDS;
  return Math.max(1, Math.ceil((Date.parse(next) - Date.parse(at)) / 1000));
}
