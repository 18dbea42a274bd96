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

/** A file of about 1 KiB, as a Kubernetes object's YAML is. */
export const objectText = (i: number): string =>
  `name: obj-${i}\n${Array.from({ length: 30 }, (_, k) => `key-${k}: ${(i * 7919 + k * 104729) % 1000003}`).join('\n')}\n`;
