import { z } from 'zod';
import { isRepositoryBusy } from '../activities/repository-admission';

/** One step of a branch's driver, in words: what it planned, published, waited for, was woken by. */
export interface DriverStep {
  at: string;
  kind:
    | 'started'
    | 'plan'
    | 'recorded'
    | 'publication'
    | 'activity'
    | 'timer'
    | 'timer-fired'
    | 'wake'
    | 'restarted';
  detail: string;
}

// The history events as the durable client's status shows them (`showHistory`, `showHistoryOutput`):
// only the fields read here, every one optional, so an event of another shape is skipped, not refused.
const eventSchema = z.looseObject({
  EventType: z.string(),
  Timestamp: z.string(),
  EventId: z.number().optional(),
  Name: z.string().optional(),
  Input: z.string().optional(),
  Result: z.string().optional(),
  Reason: z.string().optional(),
  TaskScheduledId: z.number().optional(),
  FireAt: z.string().optional(),
});
const entityCallSchema = z.looseObject({ id: z.string(), op: z.string(), input: z.string().optional() });
const planAnswerSchema = z.looseObject({
  plan: z
    .looseObject({
      effects: z.array(z.looseObject({ type: z.string(), attempt: z.string().optional() })).default([]),
      nextDeadline: z.string().optional(),
    })
    .optional(),
});
const commandsSchema = z.looseObject({ commands: z.array(z.looseObject({ type: z.string() })).default([]) });
const publicationSchema = z.looseObject({
  outcome: z.string(),
  head: z.string().optional(),
  cause: z.looseObject({ message: z.string().optional() }).optional(),
});
const DETAIL_CHARS = 300;

function json(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function seconds(fromIso: string, toIso: string): string {
  return `${Math.max(0, (Date.parse(toIso) - Date.parse(fromIso)) / 1000).toFixed(1)}s`;
}

function publicationDetail(result: unknown, took: string): string {
  if (isRepositoryBusy(result))
    return `not started: the repository has ${result.repositoryBusy.inFlight} Git activities in flight (${took})`;
  const parsed = publicationSchema.safeParse(result);
  if (!parsed.success) return `ended in ${took}`;
  const { outcome, head, cause } = parsed.data;
  const what = head
    ? `${outcome}, head ${head.slice(0, 12)}`
    : cause?.message
      ? `${outcome}: ${cause.message}`
      : outcome;
  return `${what} (${took})`;
}

function planDetail(answer: unknown): string {
  const plan = planAnswerSchema.safeParse(answer).data?.plan;
  if (!plan) return 'could not plan';
  const effects = plan.effects.map((effect) => {
    // attempt ids number every publication of the branch, successes included: shown as a number,
    // not as the count of tries it reads as
    const publication =
      effect.type === 'publish' ? /^attempt-(\d+)$/.exec(effect.attempt ?? '')?.[1] : undefined;
    if (publication) return `publication #${publication}`;
    return effect.attempt ? `${effect.type} ${effect.attempt}` : effect.type;
  });
  if (effects.length > 0) return effects.join(', ');
  return plan.nextDeadline ? `nothing due; next deadline ${plan.nextDeadline}` : 'nothing due';
}

/**
 * The driver's steps from its execution history, oldest first: entity calls are paired with their
 * answers, activities with their results (and how long they took), timers with their firing.
 */
export function driverSteps(history: readonly unknown[]): DriverStep[] {
  const steps: DriverStep[] = [];
  const calls = new Map<string, { op: string; input: unknown }>();
  const scheduled = new Map<number, { name: string; at: string }>();
  for (const raw of history) {
    const parsed = eventSchema.safeParse(raw);
    if (!parsed.success) continue;
    const event = parsed.data;
    const at = event.Timestamp;
    const push = (kind: DriverStep['kind'], detail: string) =>
      steps.push({
        at,
        kind,
        detail: detail.length <= DETAIL_CHARS ? detail : `${detail.slice(0, DETAIL_CHARS - 1)}…`,
      });
    switch (event.EventType) {
      case 'ExecutionStarted':
        push('started', 'driver execution started');
        break;
      case 'ContinuedAsNew':
      case 'ExecutionCompleted':
        push('restarted', 'execution ended; the driver continues as new');
        break;
      case 'EventSent': {
        const call = entityCallSchema.safeParse(json(event.Input));
        if (call.success) calls.set(call.data.id, { op: call.data.op, input: json(call.data.input) });
        break;
      }
      case 'EventRaised': {
        if (event.Name === 'wake') {
          push('wake', 'woken by a request');
          break;
        }
        const call = event.Name === undefined ? undefined : calls.get(event.Name);
        if (!call) break;
        const answer = json(z.looseObject({ result: z.string() }).safeParse(json(event.Input)).data?.result);
        if (call.op === 'plan') push('plan', planDetail(answer));
        else if (call.op === 'apply') {
          const commands = commandsSchema.safeParse(call.input).data?.commands ?? [];
          push('recorded', commands.map((command) => command.type).join(', ') || 'nothing');
        }
        break;
      }
      case 'TaskScheduled':
        if (event.EventId !== undefined) scheduled.set(event.EventId, { name: event.Name ?? 'activity', at });
        break;
      case 'TaskCompleted':
      case 'TaskFailed': {
        const task = event.TaskScheduledId === undefined ? undefined : scheduled.get(event.TaskScheduledId);
        if (!task) break;
        const took = seconds(task.at, at);
        const failed = event.EventType === 'TaskFailed';
        if (task.name === 'publish') {
          push(
            'publication',
            failed
              ? `failed: ${event.Reason ?? 'unknown'} (${took})`
              : publicationDetail(json(event.Result), took),
          );
        } else {
          push(
            'activity',
            `${task.name} ${failed ? `failed: ${event.Reason ?? 'unknown'}` : 'done'} (${took})`,
          );
        }
        break;
      }
      case 'TimerCreated':
        push('timer', `sleeps until ${event.FireAt ?? 'unknown'}`);
        break;
      case 'TimerFired':
        push('timer-fired', `timer for ${event.FireAt ?? 'unknown'} fired`);
        break;
    }
  }
  return steps;
}
