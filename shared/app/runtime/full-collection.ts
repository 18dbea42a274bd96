import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection of this thread's heap, where the runtime allows one (else nothing).
 *
 * Why: a snapshot's parts are parsed and normalized on the main thread, 500 objects a body, and
 * what a part holds while it is stored outlives the young generation's collections; V8 then lets
 * the old generation grow to several times what is live before collecting it, and keeps the pages
 * it grew into. After a 40,000-object snapshot's parts the main thread held about 37 MB of live
 * heap in 115 MB of heap, all of it kept while the publication's thread builds the tree beside it:
 * the first snapshot's peak. Collected once when the snapshot is completed, the heap is 66 MB and
 * the peak 40–60 MB lower (docs/architecture.md, "A cluster").
 */
export function collectGarbage(): void {
  collector ??= obtainCollector();
  if (collector === 'unavailable') return;
  // twice: the pages one collection frees are given back by the next (after one, the heap above
  // stayed at 94–99 MB)
  collector();
  collector();
}

let collector: (() => void) | 'unavailable' | undefined;

/** Node's `gc`: the process's own with `--expose-gc`, else one exposed to a fresh context. */
function obtainCollector(): (() => void) | 'unavailable' {
  const exposed: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return () => exposed();
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => gc() : 'unavailable';
  } catch {
    return 'unavailable';
  }
}
