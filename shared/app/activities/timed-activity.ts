import { emit } from '../../telemetry/bus';

/** Runs an activity and tells how long it took and whether it threw. */
export async function timedActivity<T>(activity: string, run: () => Promise<T>): Promise<T> {
  const startedMs = performance.now();
  let ok = false;
  try {
    const result = await run();
    ok = true;
    return result;
  } finally {
    emit({ type: 'ActivityRan', activity, durationMs: performance.now() - startedMs, ok });
  }
}
