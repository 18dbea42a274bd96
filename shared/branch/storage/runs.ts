import type { OpenWindow, StoredRun, WriteRun } from '../model';

/** A run as the state keeps it (a tuple: a window or write holds a few of them, never one per change). */
export function storeRun(run: WriteRun): StoredRun {
  return [run.ref, run.first, run.n, run.atMs, run.bytes];
}

export function expandRun([ref, first, n, atMs, bytes]: StoredRun): WriteRun {
  return { ref, first, n, atMs, bytes };
}

/** The window's counts with `run` admitted after what it holds: each change of the run counts. */
export function admitRunToWindow(
  window: OpenWindow,
  run: WriteRun,
): Pick<OpenWindow, 'runs' | 'paths' | 'bytes'> {
  return {
    runs: [...(window.runs ?? []), storeRun(run)],
    paths: window.paths + run.n,
    bytes: window.bytes + run.bytes,
  };
}

/** The changes and payload bytes of stored runs. */
export function runTotals(runs: readonly StoredRun[] | undefined): { n: number; bytes: number } {
  let n = 0;
  let bytes = 0;
  for (const run of runs ?? []) {
    n += run[2];
    bytes += run[4];
  }
  return { n, bytes };
}
