/**
 * The storage requests and bytes the Azure Storage backend (DurableTask.AzureStorage) spends on the
 * work the embedded host does, counted in the `azure-storage` faithful mode. Line numbers are of
 * Azure/durabletask at 52170329:
 * - AzureStorageOrchestrationService.cs (ASO): a client message is one control-queue AddMessage
 *   (1820-1829), a start first writes the instance row (1794; ATS 781-819); a work item's completion first adds every outbound message (CommitOutboundQueueMessages,
 *   1391-1441), then checkpoints (UpdateStateAsync, 1242), then deletes each message it consumed
 *   (DeleteMessageBatchAsync, 1282, 1444-1448).
 * - OrchestrationSessionManager.cs (OSM) 147 and ControlQueue.cs 81: messages are fetched by
 *   GetMessages, up to ControlQueueBatchSize (32) at a time; OSM 528: each work item reads the
 *   instance's history (extended sessions, which would cache it, are off by default).
 * - Tracking/AzureTableTrackingStore.cs (ATS): the history read is one query of the partition
 *   (151-245) that downloads every property kept in a blob (1328-1343); the checkpoint writes the new
 *   history rows plus the sentinel row in table transactions of up to 99 rows (915-1100, 1389-1427),
 *   then merges the instance row (1222), which copies the input inline or the blob's URL (1275-1294);
 *   a property over 60 KB of UTF-16 is uploaded to a blob (52, 1296-1326, 1480-1482); the previous
 *   execution's blobs are deleted after a continue-as-new (947-952).
 * - ATS 403-442: a client's status read (and the extension's read of an entity's state) is one query
 *   of the Instances table, with a download for each property kept in a blob.
 * - ASO 1600-1633: an activity's work item adds its result to the control queue and deletes its
 *   message from the work-item queue.
 * - MessageManager.cs 43, 103-115, 294: a queue message over 45 KB goes to a blob, the message
 *   carrying its name.
 * - DurableTask.Core TaskEntityDispatcher.cs 355-384: an entity batch always continues as new: its
 *   new history is OrchestratorStarted, ExecutionStarted (input: the serialized SchedulerState, whose
 *   "state" is the entity state as a string: Entities/StateFormat/SchedulerState.cs 33) and
 *   OrchestratorCompleted; the consumed operations are not written to history.
 * Bytes are the payloads' (inputs, results, states, messages) as UTF-8, uncompressed (the backend
 * gzips blobs); the fixed columns of a row and the HTTP framing are left out.
 */
import { entityStateAsStored } from './engine-semantics';

const KIB = 1024;
/** MessageManager.cs 43: MaxStorageQueuePayloadSizeInBytes, measured in UTF-8. */
const QUEUE_INLINE_BYTES = 45 * KIB;
/** ATS 52 and 1480-1482: MaxTablePropertySizeInBytes, measured in UTF-16. */
const TABLE_INLINE_BYTES = 60 * KIB;
/** ControlQueue.cs 81: settings.ControlQueueBatchSize, default 32. */
const MESSAGES_PER_GET = 32;
/** ATS 1065: a history transaction is cut at 99 rows (with the sentinel, Table storage's 100). */
const ROWS_PER_TRANSACTION = 99;
/** TaskEntityDispatcher.cs 380-384: the rows of an entity's new execution. */
const ENTITY_HISTORY_ROWS = 3;

export interface StorageCounts {
  queue: { add: number; get: number; delete: number };
  table: { query: number; transaction: number; rowsWritten: number; instanceMerge: number };
  blob: { upload: number; download: number; delete: number };
  bytesWritten: number;
  bytesRead: number;
  /** The entity states the batches carried (their SchedulerState, as UTF-8): how many, their sum, the largest. */
  entityStates: { batches: number; bytes: number; maxBytes: number };
}

export function emptyStorageCounts(): StorageCounts {
  return {
    queue: { add: 0, get: 0, delete: 0 },
    table: { query: 0, transaction: 0, rowsWritten: 0, instanceMerge: 0 },
    blob: { upload: 0, download: 0, delete: 0 },
    bytesWritten: 0,
    bytesRead: 0,
    entityStates: { batches: 0, bytes: 0, maxBytes: 0 },
  };
}

/** Storage requests of all kinds: what the backend is billed for and waits on. */
export function storageRequests(c: StorageCounts): number {
  return (
    c.queue.add +
    c.queue.get +
    c.queue.delete +
    c.table.query +
    c.table.transaction +
    c.table.instanceMerge +
    c.blob.upload +
    c.blob.download +
    c.blob.delete
  );
}

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
const inTable = (s: string) => s.length * 2 <= TABLE_INLINE_BYTES;

/**
 * The SchedulerState an entity's execution carries as its input (null: the entity is deleted), as
 * the faithful mode measures it against the backend's limits: one model of the stored state.
 */
function schedulerStateOf(entityState: string | null): string | null {
  return entityState === null ? null : entityStateAsStored(true, entityState, []);
}

/** A message added to a control queue (a client's signal or event, or a work item's outbound one). */
export function countMessageAdded(c: StorageCounts, json: string): void {
  c.queue.add++;
  c.bytesWritten += utf8(json);
  if (utf8(json) > QUEUE_INLINE_BYTES) c.blob.upload++;
}

/** A client's start: the instance row written, then the ExecutionStarted message added. */
export function countStarted(c: StorageCounts, input: string): void {
  c.table.instanceMerge++;
  c.bytesWritten += utf8(input);
  if (!inTable(input)) c.blob.upload++;
  countMessageAdded(c, input);
}

/** The messages a work item consumed: fetched in GetMessages calls, read, then each deleted. */
function countConsumed(c: StorageCounts, messages: string[]): void {
  c.queue.get += Math.ceil(messages.length / MESSAGES_PER_GET);
  c.queue.delete += messages.length;
  for (const m of messages) {
    c.bytesRead += utf8(m);
    if (utf8(m) > QUEUE_INLINE_BYTES) c.blob.download++;
  }
}

/**
 * One query of a table (a partition's history rows, or an instance's row), with a download for each
 * property the rows keep in a blob. A client's status read, and the extension's read of an entity's
 * state from the row's input, are one such query of the Instances table (ATS 403-442,
 * FetchInstanceStatusInternalAsync, and ConvertFromAsync).
 */
export function countTableRead(c: StorageCounts, properties: string[]): void {
  c.table.query++;
  for (const p of properties) {
    c.bytesRead += utf8(p);
    if (!inTable(p)) c.blob.download++;
  }
}

/** New history rows in transactions with the sentinel; `properties` are their variable-size values. */
function countHistoryWrite(c: StorageCounts, rows: number, properties: string[]): void {
  c.table.transaction += Math.max(1, Math.ceil(rows / ROWS_PER_TRANSACTION));
  c.table.rowsWritten += rows + 1;
  for (const p of properties) {
    c.bytesWritten += utf8(p);
    if (!inTable(p)) c.blob.upload++;
  }
}

/** The instance row's merge: its input inline (or the history blob's URL) and its custom status. */
function countInstanceMerge(c: StorageCounts, input: string | null, customStatus: string | null): void {
  c.table.instanceMerge++;
  if (input !== null && inTable(input)) c.bytesWritten += utf8(input);
  if (customStatus !== null) c.bytesWritten += utf8(customStatus);
}

/** One entity batch: its operations consumed, its state carried through a new execution. */
export function countEntityBatch(
  c: StorageCounts,
  batch: { consumed: string[]; stateBefore: string | null; stateAfter: string | null; outbound: string[] },
): void {
  const before = schedulerStateOf(batch.stateBefore);
  const after = schedulerStateOf(batch.stateAfter);
  countTableRead(c, before === null ? [] : [before]);
  for (const m of batch.outbound) countMessageAdded(c, m);
  countHistoryWrite(c, ENTITY_HISTORY_ROWS, after === null ? [] : [after]);
  // TaskEntityDispatcher.cs 371-377: the custom status is the EntityStatus, without its defaults.
  countInstanceMerge(c, after, after === null ? '{}' : '{"entityExists":true}');
  if (before !== null && !inTable(before)) c.blob.delete++;
  countConsumed(c, batch.consumed);
  const carried = after === null ? 0 : utf8(after);
  c.entityStates.batches++;
  c.entityStates.bytes += carried;
  c.entityStates.maxBytes = Math.max(c.entityStates.maxBytes, carried);
}

/** An activity's work item: its message taken from the work-item queue, its result sent back. */
export function countActivity(c: StorageCounts, input: string, result: string): void {
  c.queue.get++;
  c.queue.delete++;
  c.bytesRead += utf8(input);
  countMessageAdded(c, result);
}

/** One orchestration episode: its history read, new events written, instance merged. */
export function countEpisode(
  c: StorageCounts,
  episode: {
    consumed: string[];
    pastProperties: string[];
    newRows: number;
    newProperties: string[];
    outbound: string[];
    input: string | null;
    customStatus: string | null;
  },
): void {
  countTableRead(c, episode.pastProperties);
  for (const m of episode.outbound) countMessageAdded(c, m);
  countHistoryWrite(c, episode.newRows, episode.newProperties);
  countInstanceMerge(c, episode.input, episode.customStatus);
  countConsumed(c, episode.consumed);
}
