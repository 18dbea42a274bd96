import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * What an at-least-once feed remembers of each object it recorded, so that a redelivered audit
 * event (same `auditID`) or an older one arriving late from another partition never changes the
 * file again once its window has closed: the branch's decider orders changes only within a window.
 * One small record per object path, kept beside the payloads (not in the branch entity's state,
 * which every operation carries): the newest change recorded and the last few audit IDs.
 */
export interface FeedMemoryStore {
  /** The record under `key` with its tag, or undefined when there is none. */
  read(key: string): Promise<{ text: string; tag: string } | undefined>;
  /**
   * Writes `text` under `key` if the record is still the one read with `tag` (absent: if there is
   * none). False when another writer came first: read again and merge.
   */
  write(key: string, text: string, tag: string | undefined): Promise<boolean>;
}

/** Audit IDs kept per object: redeliveries come in the minutes after the first delivery. */
export const AUDIT_IDS_KEPT = 16;

const mark = z.object({
  /** The object's resourceVersion when the change was an upsert with an integer one. */
  rv: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional(),
  /** The apiserver's `stageTimestamp` (RFC 3339, microseconds, UTC). */
  at: z.string().max(40).optional(),
  deleted: z.boolean().optional(),
});

/** A feed memory record as stored; `v` versions the shape. */
export const feedRecordSchema = z.strictObject({
  v: z.literal(1),
  newest: mark,
  auditIDs: z.array(z.string().max(128)).max(AUDIT_IDS_KEPT),
});
export type FeedRecord = z.output<typeof feedRecordSchema>;
type FeedMark = z.output<typeof mark>;

/** One audit event's change, as the memory judges it. */
export interface FeedCandidate {
  auditID: string;
  operation: 'upsert' | 'delete';
  resourceVersion?: string | undefined;
  stageTimestamp?: string | undefined;
}

export type FeedVerdict = 'new' | 'duplicate' | 'older';

const INTEGER = /^\d{1,20}$/;
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

function markOf(candidate: FeedCandidate): FeedMark {
  return {
    ...(candidate.operation === 'upsert' && INTEGER.test(candidate.resourceVersion ?? '')
      ? { rv: candidate.resourceVersion }
      : {}),
    ...(MICRO_TIME.test(candidate.stageTimestamp ?? '') ? { at: candidate.stageTimestamp } : {}),
    ...(candidate.operation === 'delete' ? { deleted: true } : {}),
  };
}

/**
 * Whether `a` is older than `b`, or undefined when nothing tells. Two upserts compare by
 * resourceVersion (etcd revisions); a delete carries none the apiserver logs, so it compares by the
 * apiserver's stageTimestamp.
 */
function olderThan(a: FeedMark, b: FeedMark): boolean | undefined {
  if (a.rv !== undefined && b.rv !== undefined) return BigInt(a.rv) <= BigInt(b.rv);
  if (a.at !== undefined && b.at !== undefined) return timeOf(a.at) <= timeOf(b.at);
  return undefined;
}

// Fractions padded to nanoseconds, so the timestamps compare as text.
function timeOf(at: string): string {
  const [seconds, fraction = ''] = at.slice(0, -1).split('.');
  return `${seconds}.${fraction.padEnd(9, '0')}`;
}

/** What to do with a candidate given the object's record. */
export function judge(record: FeedRecord | undefined, candidate: FeedCandidate): FeedVerdict {
  if (!record) return 'new';
  if (record.auditIDs.includes(candidate.auditID)) return 'duplicate';
  return olderThan(markOf(candidate), record.newest) === true ? 'older' : 'new';
}

/** The record once `candidate` is recorded (whichever of the two is newer stays newest). */
export function remember(record: FeedRecord | undefined, candidate: FeedCandidate): FeedRecord {
  const next = markOf(candidate);
  const auditIDs = [...(record?.auditIDs ?? []).filter((id) => id !== candidate.auditID), candidate.auditID];
  const newest = record && olderThan(next, record.newest) === true ? record.newest : next;
  return { v: 1, newest, auditIDs: auditIDs.slice(-AUDIT_IDS_KEPT) };
}

/** Two writers' records of one object as one (a concurrent partition wrote first). */
function merge(ours: FeedRecord, theirs: FeedRecord): FeedRecord {
  const newest = olderThan(ours.newest, theirs.newest) === true ? theirs.newest : ours.newest;
  const auditIDs = [...theirs.auditIDs.filter((id) => !ours.auditIDs.includes(id)), ...ours.auditIDs];
  return { v: 1, newest, auditIDs: auditIDs.slice(-AUDIT_IDS_KEPT) };
}

/** The store key of a target's object path: a digest, so any path gives a safe name. */
export function feedKey(target: string, path: string): string {
  return createHash('sha256').update(`${target}\n${path}`).digest('hex');
}

/** Reads a record; one that does not parse (written by a later release) counts as none. */
export async function readRecord(
  store: FeedMemoryStore,
  key: string,
): Promise<{ record: FeedRecord | undefined; tag: string | undefined }> {
  const stored = await store.read(key);
  if (!stored) return { record: undefined, tag: undefined };
  const parsed = feedRecordSchema.safeParse(safeJson(stored.text));
  return { record: parsed.success ? parsed.data : undefined, tag: stored.tag };
}

/** Stores `ours`, merged with whatever a concurrent writer stored since. */
export async function storeRecord(store: FeedMemoryStore, key: string, ours: FeedRecord): Promise<void> {
  for (;;) {
    const { record, tag } = await readRecord(store, key);
    const next = record ? merge(ours, record) : ours;
    if (await store.write(key, JSON.stringify(next), tag)) return;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
