import { z } from 'zod';
import type { PayloadStore } from '../payloads';

/**
 * The contents of one request's changes, stored as one payload: a request of 400 objects costs
 * one durable write (one fsync, one blob), not 400. Each change refers to its element as
 * `<batch ref>#<index>`.
 */
export async function storeBatch(payloads: PayloadStore, contents: readonly string[]): Promise<string[]> {
  if (contents.length === 0) return [];
  const ref = await payloads.put(JSON.stringify(contents));
  return contents.map((_, index) => `${ref}#${index}`);
}

const batchSchema = z.array(z.string());

/**
 * Reads payload references, plain or `<batch ref>#<index>`, reading each batch once.
 * @returns a reader for one publication (its cache lives as long as the reader).
 */
export function batchPayloadReader(payloads: PayloadStore): (ref: string) => Promise<Uint8Array> {
  const batches = new Map<string, Promise<string[]>>();
  const encoder = new TextEncoder();
  return async (ref) => {
    const hash = ref.lastIndexOf('#');
    if (hash < 0) return payloads.get(ref);
    const base = ref.slice(0, hash);
    const index = Number(ref.slice(hash + 1));
    let batch = batches.get(base);
    if (!batch) {
      batch = payloads
        .get(base)
        .then((bytes) => batchSchema.parse(JSON.parse(new TextDecoder().decode(bytes))));
      batches.set(base, batch);
    }
    const content = (await batch)[index];
    if (content === undefined) throw new RangeError(`payload ${ref} names no element of its batch`);
    return encoder.encode(content);
  };
}
