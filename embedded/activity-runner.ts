/**
 * Runs one activity work item with a per-invocation timeout (host.json `functionTimeout`), then, in
 * one transaction, removes the work item and queues TaskCompleted/TaskFailed for the orchestration.
 * A crash before that commit leaves the work item in place: it runs again (at least once, as on Azure).
 */
import type { HostContext } from './host-context';
import { invokeActivity } from './invoke';
import { EventType, type HistoryEvent } from './protocol';

/**
 * Runs one activity work item (if it still exists). 'aborted': the worker it ran on restarted (a
 * function timeout in a faithful mode) before it ended; its result is void and it must run again.
 */
export async function runActivity(
  host: HostContext,
  workId: number,
  timeoutMs: number,
): Promise<'done' | 'aborted'> {
  const work = host.store.getActivity(workId);
  if (!work) return 'done';
  host.engine.countDispatched('activityStarts');
  const generation = host.engine.workerGeneration();
  let event: HistoryEvent;
  try {
    const value = await withTimeout(host, work.name, timeoutMs, () => invoke(host, work.name, work.input));
    const result = JSON.stringify(value === undefined ? null : value);
    if (host.engine.workerGeneration() !== generation) return 'aborted';
    host.engine.checkPayload('message', `the result of activity '${work.name}'`, result);
    event = { EventType: EventType.TaskCompleted, EventId: -1, TaskScheduledId: work.taskId, Result: result };
  } catch (e) {
    // The invocation that timed out fails (FunctionTimeoutException reaches the orchestration, as
    // TaskActivityShim reports it); the others the restart cut short are retried.
    if (!(e instanceof FunctionTimeoutError) && host.engine.workerGeneration() !== generation)
      return 'aborted';
    const error = e instanceof Error ? e : new Error(String(e));
    host.log('warn', 'ActivityFailed', {
      instanceId: work.instanceId,
      activity: work.name,
      error: error.message,
    });
    event = {
      EventType: EventType.TaskFailed,
      EventId: -1,
      TaskScheduledId: work.taskId,
      Reason: `Activity function '${work.name}' failed: ${error.message}`,
      Details: error.stack ?? '',
    };
  }
  if (host.stopping()) return 'done';
  const delivered = host.store.transaction(() => {
    if (!host.store.deleteActivity(workId)) return false;
    host.store.enqueue(work.instanceId, { kind: 'event', executionId: work.executionId, event });
    return true;
  });
  if (!delivered) return 'done';
  host.engine.countActivity(JSON.stringify(work.input ?? null), event.Result ?? event.Details ?? '');
  host.wake([work.instanceId]);
  return 'done';
}

/** An invocation that ran past functionTimeout. */
class FunctionTimeoutError extends Error {}

async function invoke(host: HostContext, name: string, input: unknown): Promise<unknown> {
  const fn = host.findFunction(name, 'activityTrigger');
  if (!fn) throw new Error(`The activity function '${name}' does not exist.`);
  const request = { name, input: JSON.stringify(input ?? null), clientInputs: host.clientInputs(fn) };
  if (host.activityThreads) return host.activityThreads.invoke(request);
  return invokeActivity({ fn, ...request, log: host.functionLog });
}

/** An activity that ran past its timeout fails; what it still does afterwards is ignored. */
function withTimeout<T>(
  host: HostContext,
  name: string,
  timeoutMs: number,
  run: () => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = host.clock.at(host.clock.now() + timeoutMs, () => {
      host.log('warn', 'ActivityTimedOut', { activity: name, timeoutMs });
      reject(new FunctionTimeoutError(host.engine.timeoutMessage(name, timeoutMs)));
      // On Azure the host then restarts the worker, which cuts short every invocation on it.
      host.engine.onFunctionTimeout();
    });
    run().then(
      (v) => {
        cancel();
        resolve(v);
      },
      (e: unknown) => {
        cancel();
        reject(e);
      },
    );
  });
}
