/**
 * Runs one activity work item with a per-invocation timeout (host.json `functionTimeout`), then, in
 * one transaction, removes the work item and queues TaskCompleted/TaskFailed for the orchestration.
 * A crash before that commit leaves the work item in place: it runs again (at least once, as on Azure).
 */
import type { HostContext } from './host-context';
import { invokeActivity } from './invoke';
import { EventType, type HistoryEvent } from './protocol';

/** Runs one activity work item (if it still exists). */
export async function runActivity(host: HostContext, workId: number, timeoutMs: number): Promise<void> {
  const work = host.store.getActivity(workId);
  if (!work) return;
  let event: HistoryEvent;
  try {
    const value = await withTimeout(host, work.name, timeoutMs, () => invoke(host, work.name, work.input));
    event = {
      EventType: EventType.TaskCompleted,
      EventId: -1,
      TaskScheduledId: work.taskId,
      Result: JSON.stringify(value === undefined ? null : value),
    };
  } catch (e) {
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
  if (host.stopping()) return;
  const delivered = host.store.transaction(() => {
    if (!host.store.deleteActivity(workId)) return false;
    host.store.enqueue(work.instanceId, { kind: 'event', executionId: work.executionId, event });
    return true;
  });
  if (delivered) host.wake([work.instanceId]);
}

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
      reject(new Error(`Timeout value of ${timeoutMs} ms was exceeded by function: ${name}`));
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
