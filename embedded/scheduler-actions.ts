/**
 * What the Durable Task Scheduler bills, counted in the `dts` faithful mode. Its unit is the action:
 * "a message dispatched by the Durable Task Scheduler to your application, triggering the execution
 * of an orchestrator, activity, or entity function": starting an orchestration or sub-orchestration,
 * starting an activity, completing a timer, triggering an external event, executing an entity
 * operation, suspending, resuming or terminating an orchestration, and processing the result of an
 * activity, entity call, entity lock or sub-orchestration (learn.microsoft.com/azure/azure-functions/
 * durable/durable-task-scheduler/durable-task-scheduler-dedicated-sku, "What is an action?"; its
 * example: an orchestration that calls three activities spends seven, one to start and two per activity).
 *
 * A continue-as-new is not one: DTFx's dispatcher runs the next execution in the same work item
 * (Azure/durabletask at 52170329, src/DurableTask.Core/TaskOrchestrationDispatcher.cs lines
 * 627-677, `do { … } while (continuedAsNew)`); the embedded host queues it as a message of its own,
 * which is not counted. An entity's answer to an orchestration's call reaches it as an event in the
 * JavaScript protocol, so results of entity calls are counted with external events.
 */
import { EventType } from './protocol';
import type { Message } from './store';

export interface SchedulerActions {
  orchestrationStarts: number;
  activityStarts: number;
  activityResults: number;
  timersFired: number;
  /** External events and the answers of entity calls. */
  events: number;
  subOrchestrationResults: number;
  entityOperations: number;
  terminations: number;
}

export type SchedulerAction = keyof SchedulerActions;

export function emptySchedulerActions(): SchedulerActions {
  return {
    orchestrationStarts: 0,
    activityStarts: 0,
    activityResults: 0,
    timersFired: 0,
    events: 0,
    subOrchestrationResults: 0,
    entityOperations: 0,
    terminations: 0,
  };
}

/** Every action counted: what the Consumption SKU bills and a Dedicated SKU's capacity units are sized by. */
export function schedulerActionTotal(actions: SchedulerActions): number {
  return Object.values(actions).reduce((sum, n) => sum + n, 0);
}

/**
 * The action an orchestration's work item spends on a message it takes; none for the start of an
 * execution that follows a continue-as-new (`continuing`), which the real dispatcher runs in the
 * work item that continued.
 */
export function actionOfMessage(message: Message, continuing: boolean): SchedulerAction | undefined {
  if (message.kind === 'op') return 'entityOperations';
  switch (message.event.EventType) {
    case EventType.ExecutionStarted:
      return continuing ? undefined : 'orchestrationStarts';
    case EventType.TaskCompleted:
    case EventType.TaskFailed:
      return 'activityResults';
    case EventType.TimerFired:
      return 'timersFired';
    case EventType.EventRaised:
      return 'events';
    case EventType.SubOrchestrationInstanceCompleted:
    case EventType.SubOrchestrationInstanceFailed:
      return 'subOrchestrationResults';
    default:
      return undefined;
  }
}
