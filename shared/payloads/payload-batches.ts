import { z } from 'zod';
import type { PayloadStore } from '.';

/**
 * The contents of one request's changes, stored as one payload: a request of 400 objects costs
 * one durable write (one fsync, one blob), not 400. Each change refers to its element as
 * `<batch ref>#<index>`.
 *
 * A batch is `KSB1\n`, the item count and each item's byte length as 32-bit little-endian numbers,
 * then the items' UTF-8 bytes one after another: a publication reads an item as a slice of the
 * batch, with no parsing and no re-encoding. A batch stored as a JSON array of strings (the form
 * before this one) is still read.
 */
const MAGIC = Buffer.from('KSB1\n');

/** Stores a request's contents as one batch; returns each item's reference, in order. */
export async function storeBatch(payloads: PayloadStore, contents: readonly string[]): Promise<string[]> {
  if (contents.length === 0) return [];
  const ref = await putBatch(payloads, contents);
  return contents.map((_, index) => `${ref}#${index}`);
}

/** Stores `contents` as one batch; returns the batch's reference (its items are `<ref>#<index>`). */
export async function putBatch(payloads: PayloadStore, contents: readonly string[]): Promise<string> {
  return payloads.put(encodeBatch(contents));
}

/**
 * A batch's bytes, each item encoded straight into the one buffer they are stored as: no buffer
 * per item and no copy of them all (a request of 400 objects allocated 401 buffers and copied
 * every byte twice).
 */
export function encodeBatch(contents: readonly string[]): Buffer {
  const lengths = contents.map((content) => Buffer.byteLength(content, 'utf8'));
  let offset = MAGIC.length + 4 * (contents.length + 1);
  const batch = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, offset));
  MAGIC.copy(batch);
  batch.writeUInt32LE(contents.length, MAGIC.length);
  contents.forEach((content, index) => {
    batch.writeUInt32LE(lengths[index]!, MAGIC.length + 4 * (index + 1));
    // UTF-8 as Buffer.byteLength counts it (a lone surrogate as U+FFFD's 3 bytes), so every byte is written
    offset += batch.write(content, offset, 'utf8');
  });
  return batch;
}

const legacyBatchSchema = z.array(z.string());

/** A stored batch's items, as slices of its bytes. */
function itemsOf(ref: string, bytes: Uint8Array): Uint8Array[] {
  const batch = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!batch.subarray(0, MAGIC.length).equals(MAGIC)) {
    const encoder = new TextEncoder();
    return legacyBatchSchema.parse(JSON.parse(batch.toString('utf8'))).map((item) => encoder.encode(item));
  }
  const corrupt = () => new RangeError(`payload ${ref} is not a well-formed batch`);
  if (batch.length < MAGIC.length + 4) throw corrupt();
  const count = batch.readUInt32LE(MAGIC.length);
  let offset = MAGIC.length + 4 * (count + 1);
  if (batch.length < offset) throw corrupt();
  const items: Uint8Array[] = [];
  for (let index = 0; index < count; index++) {
    const length = batch.readUInt32LE(MAGIC.length + 4 * (index + 1));
    if (offset + length > batch.length) throw corrupt();
    items.push(batch.subarray(offset, offset + length));
    offset += length;
  }
  if (offset !== batch.length) throw corrupt();
  return items;
}

/**
 * Reads payload references, plain or `<batch ref>#<index>`, reading each batch once.
 * @returns a reader for one publication (its cache lives as long as the reader).
 */
export function batchPayloadReader(payloads: PayloadStore): (ref: string) => Promise<Uint8Array> {
  return batchReader(payloads).item;
}

/**
 * Reads batches, each once: `item` an item by reference (plain or `<batch ref>#<index>`), `items`
 * every item of the batch `base`. One reader serves one publication (its cache lives as long as it).
 */
export function batchReader(payloads: PayloadStore): {
  item: (ref: string) => Promise<Uint8Array>;
  items: (base: string) => Promise<Uint8Array[]>;
} {
  const batches = new Map<string, Promise<Uint8Array[]>>();
  const items = (base: string) => {
    let batch = batches.get(base);
    if (!batch) {
      batch = payloads.get(base).then((bytes) => itemsOf(base, bytes));
      batches.set(base, batch);
    }
    return batch;
  };
  const item = async (ref: string) => {
    const hash = ref.lastIndexOf('#');
    if (hash < 0) return payloads.get(ref);
    const content = (await items(ref.slice(0, hash)))[Number(ref.slice(hash + 1))];
    if (content === undefined) throw new RangeError(`payload ${ref} names no element of its batch`);
    return content;
  };
  return { item, items };
}
