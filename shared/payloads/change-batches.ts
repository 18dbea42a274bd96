import { z } from 'zod';
import { type AdmittedChange, changeSchema } from '../branch';
import { quickParse } from '../json/quick-parse';
import { batchReader, putBatch } from './payload-batches';
import type { PayloadStore } from './payload-store';

/**
 * A request's changes beside the branch state: the request's contents and, as the batch's last
 * item, its change list (`{"changes": [...]}`, each change as the branch admits it, with the index
 * of its content in the batch instead of a payload reference). One payload per request, as before;
 * the branch entity keeps runs of this list (`AdmitRun`: the batch's reference, the first change and
 * the count) and the publish activity reads them back. Immutable and content-addressed like every
 * payload, written before the signal that names it.
 */
const batchedChangeSchema = changeSchema
  .omit({ payloadRef: true })
  .extend({ content: z.number().int().nonnegative().optional() });
/** A batch's change list, as stored. */
export const changeListSchema = z.strictObject({ changes: z.array(batchedChangeSchema) });
// every change of every batch a publication reads
const parseChangeList = quickParse(changeListSchema);

/** A change as a batch lists it: its content named by its index in the batch. */
export type BatchedChange = z.infer<typeof batchedChangeSchema>;

/** Stores `contents` and the change list naming them as one batch; returns the batch's reference. */
export function storeChangeBatch(
  payloads: PayloadStore,
  contents: readonly string[],
  changes: readonly BatchedChange[],
): Promise<string> {
  return putBatch(payloads, [...contents, JSON.stringify({ changes })]);
}

/** A batch's change, with its content's payload reference as the branch names it. */
export function admittedFrom(ref: string, change: BatchedChange): AdmittedChange {
  // copied key by key, the reference last: a rest and a spread of a parsed change take Node 20's
  // slow path, 0.8 µs a change of a publication against 0.1
  const admitted: Record<string, unknown> = {};
  for (const key in change) if (key !== 'content') admitted[key] = change[key as keyof BatchedChange];
  if (change.content !== undefined) admitted.payloadRef = `${ref}#${change.content}`;
  return admitted as AdmittedChange;
}

/**
 * Reads stored batches for one publication: an item by reference, and a batch's change list
 * (validated: a payload is read back across releases and from storage).
 */
export function changeBatchReader(payloads: PayloadStore): {
  readPayload: (ref: string) => Promise<Uint8Array>;
  changesOf: (ref: string) => Promise<BatchedChange[]>;
} {
  const reader = batchReader(payloads);
  const lists = new Map<string, Promise<BatchedChange[]>>();
  const decoder = new TextDecoder();
  const changesOf = (ref: string) => {
    let list = lists.get(ref);
    if (!list) {
      list = reader.items(ref).then((items) => {
        const last = items.at(-1);
        if (!last) throw new RangeError(`payload ${ref} holds no change list`);
        return parseChangeList(JSON.parse(decoder.decode(last))).changes;
      });
      lists.set(ref, list);
    }
    return list;
  };
  return { readPayload: reader.item, changesOf };
}
