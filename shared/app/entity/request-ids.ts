import { randomBytes } from 'node:crypto';

/**
 * The request id a client signal carries, so the branch can drop one the engine delivers again:
 * `<sender>-<sequence>`, where the sender is 12 random base64url characters drawn once per
 * process and the sequence counts that process's signals to one branch (base36, from 1, no
 * leading zero). Numbered per branch, the ids one branch applies are runs of consecutive numbers
 * with a gap only where a signal was held or never sent, so the branch remembers them as ranges
 * (applied-sequences.ts) instead of one by one.
 *
 * The form stays inside the entity's request-id pattern (8-64 base64url characters), so a release
 * that keeps ids one by one still takes and remembers these during a deployment's overlap.
 */
export interface SequencedRequest {
  sender: string;
  sequence: number;
}

const SENDER_BYTES = 9;
// 9 bytes are 12 base64url characters; the sequence stays below 2^53 (10 base36 digits).
const SEQUENCED = /^([A-Za-z0-9_-]{12})-([1-9a-z][0-9a-z]{0,9})$/;

/**
 * A source of request ids for one process: each call numbers the next signal to `branchKey`.
 * The sender is random (72 bits), so two processes never share one.
 */
export function requestIdSource(sender = randomBytes(SENDER_BYTES).toString('base64url')) {
  const sent = new Map<string, number>();
  return (branchKey: string): string => {
    const sequence = (sent.get(branchKey) ?? 0) + 1;
    sent.set(branchKey, sequence);
    return `${sender}-${sequence.toString(36)}`;
  };
}

/**
 * The sender and sequence of a request id in the sequenced form; undefined for any other id (a
 * random one, as releases up to 0.3.0 sent). Distinct ids never read as the same pair: the sender
 * has a fixed length and the sequence no leading zero. A random id that happens to have this form
 * reads as the same pair every time it is delivered, so it is dropped again all the same.
 */
export function sequencedRequest(id: string): SequencedRequest | undefined {
  const match = SEQUENCED.exec(id);
  if (!match) return undefined;
  return { sender: match[1]!, sequence: Number.parseInt(match[2]!, 36) };
}
