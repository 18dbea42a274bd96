/**
 * The links between parent and child orchestrations: starting a sub-orchestration inside the
 * parent's episode transaction, and answering the parent when the child finishes.
 */
import type { HostContext } from './host-context';
import { createInstance, InstanceExistsError, InvalidInstanceIdError } from './instances';
import type { EpisodeEffects } from './orchestration-actions';
import { EventType, type HistoryEvent } from './protocol';
import type { InstanceRow } from './store';

/** Creates a sub-orchestration; if it cannot start, queues its failure for the parent. */
export function startChild(
  host: HostContext,
  parent: InstanceRow,
  child: EpisodeEffects['children'][number],
  now: number,
  woken: Set<string>,
): void {
  const fail = (reason: string): void => {
    host.store.enqueue(parent.instanceId, {
      kind: 'event',
      executionId: parent.executionId,
      event: {
        EventType: EventType.SubOrchestrationInstanceFailed,
        EventId: -1,
        TaskScheduledId: child.taskId,
        Reason: reason,
        Details: '',
      },
    });
    woken.add(parent.instanceId);
  };
  if (!host.findFunction(child.name, 'orchestrationTrigger')) {
    fail(`The orchestrator function '${child.name}' does not exist.`);
    return;
  }
  try {
    createInstance(host.store, now, {
      instanceId: child.instanceId,
      name: child.name,
      input: child.input,
      parent: { instanceId: parent.instanceId, executionId: parent.executionId, taskId: child.taskId },
      version: host.versioning.defaultVersion,
    });
    woken.add(child.instanceId);
  } catch (e) {
    if (!(e instanceof InstanceExistsError || e instanceof InvalidInstanceIdError)) throw e;
    fail(e.message);
  }
}

/** Queues a finished sub-orchestration's result (or failure) for its parent. */
export function notifyParent(
  host: HostContext,
  inst: InstanceRow,
  done: InstanceRow,
  woken: Set<string>,
): void {
  const parent = inst.parent!;
  const event: HistoryEvent =
    done.status === 'Completed'
      ? {
          EventType: EventType.SubOrchestrationInstanceCompleted,
          EventId: -1,
          TaskScheduledId: parent.taskId,
          Result: JSON.stringify(done.output ?? null),
        }
      : {
          EventType: EventType.SubOrchestrationInstanceFailed,
          EventId: -1,
          TaskScheduledId: parent.taskId,
          Reason: `Orchestrator function '${inst.name}' failed: ${String(done.output)}`,
          Details: '',
        };
  host.store.enqueue(parent.instanceId, { kind: 'event', executionId: parent.executionId, event });
  woken.add(parent.instanceId);
}
