import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** The bytes the process holds on its heap and in buffers, after a full collection. */
export function heldBytes(): number {
  // twice: the first may leave what finalizers freed for the next
  collect();
  collect();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * What the process holds once collections stop finding more. Buffers an earlier test let go of are
 * freed by V8's sweeper alongside the main thread, and counted off on a later turn of the event
 * loop: a few MB of them counted off between the two measures would be taken for the cache's.
 */
export async function settledHeldBytes(): Promise<number> {
  let held = heldBytes();
  for (let round = 0; round < 10; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    const again = heldBytes();
    if (Math.abs(held - again) < 16 * 1024) return again;
    held = again;
  }
  return held;
}

/** A file of about 1 KiB, as a Kubernetes object's YAML is. */
export const objectText = (i: number): string =>
  `name: obj-${i}\n${Array.from({ length: 30 }, (_, k) => `key-${k}: ${(i * 7919 + k * 104729) % 1000003}`).join('\n')}\n`;
