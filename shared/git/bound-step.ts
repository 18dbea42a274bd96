import { emit } from '../telemetry/bus';
import { GitStepTimedOut } from './errors';
import type { Clock, GitStep } from './types';

/**
 * Runs one Git call under its own deadline (armed through the injected clock) and the caller's
 * signal. The call gets one AbortSignal; the bounded http client closes its socket when it fires.
 * A call that ran out of time rejects with GitStepTimedOut, whatever error the aborted I/O raised.
 */
export async function boundStep<T>({
  step,
  ms,
  clock,
  signal,
  run,
}: {
  step: GitStep;
  ms: number;
  clock: Clock;
  signal?: AbortSignal;
  run: (signal: AbortSignal) => Promise<T>;
}): Promise<T> {
  const controller = new AbortController();
  const timedOut = new GitStepTimedOut({ step, afterMs: ms });
  const timer = clock.setTimeout(() => controller.abort(timedOut), Math.max(0, ms));
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  const startedMs = performance.now();
  let ok = false;
  try {
    controller.signal.throwIfAborted();
    const result = await run(controller.signal);
    // isomorphic-git ends some reads quietly when their stream is destroyed (a truncated ref list
    // comes back as a short list): an answer that arrived with the abort is not an answer
    controller.signal.throwIfAborted();
    ok = true;
    return result;
  } catch (error) {
    if (controller.signal.reason === timedOut) throw timedOut;
    throw error;
  } finally {
    emit({ type: 'GitCallTimed', call: step, durationMs: performance.now() - startedMs, ok });
    clock.clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}
