import type { OrchestrationContext, OrchestrationHandler, Task } from 'durable-functions';
import * as df from 'durable-functions';
import type { ProjectionDone } from '../shared/app/activities/project-status';
import type { RemoteHead } from '../shared/app/activities/read-remote';
import { isRepositoryBusy, type RepositoryBusy } from '../shared/app/activities/repository-admission';
import { type DriverStart, driverStartSchema, foreignDriver } from '../shared/app/driver/driver-input';
import { driverStatus } from '../shared/app/driver/driver-status';
import {
  DRIVER_LOOPS_PER_EXECUTION,
  nextDriverStep,
  PROJECTION_RETRY_MS,
  repositoryBusyWaitMs,
} from '../shared/app/driver/driver-step';
import type { BranchOperationAnswer } from '../shared/app/entity/branch-operations';
import {
  BRANCH_DRIVER,
  BRANCH_ENTITY,
  PROJECT_STATUS_ACTIVITY,
  PUBLISH_ACTIVITY,
  PULL_REQUEST_ACTIVITY,
  READ_REMOTE_ACTIVITY,
  WAKE_EVENT,
} from '../shared/app/runtime/durable-names';
import type { BranchCommand, PublicationResult } from '../shared/branch';
import type { PullRequestResult } from '../shared/branch/commands';
import { scrubSecrets } from '../shared/errors';

/**
 * The eternal driver of one branch: asks the entity what is due, runs that effect as an activity,
 * reports the result back as a command, and sleeps on a durable timer until the next deadline or
 * a `wake` event. Deterministic: time is `currentUtcDateTime`; every choice is `nextDriverStep`'s.
 */
const branchDriver: OrchestrationHandler = function* (context: OrchestrationContext) {
  const start: DriverStart = driverStartSchema.parse(context.df.getInput());
  // Before any task: the same decision at every replay of this execution, whatever history
  // other code wrote. Failing ends the instance; a wake or the keeper starts it under this code.
  const foreign = foreignDriver(start);
  if (foreign) throw new Error(foreign);
  const { driverVersion: _, ...input } = start;
  const entity = new df.EntityId(BRANCH_ENTITY, input.branchKey);
  const now = () => context.df.currentUtcDateTime.toISOString();
  const apply = (commands: BranchCommand[]) => context.df.callEntity(entity, 'apply', { commands });
  let projectionsDeferredUntil: string | undefined;
  // Git activities in a row answered RepositoryBusy: the wait before asking again grows with them.
  let busy = 0;
  /** Waits for the repository to have room (or a `wake`), then plans again: nothing was recorded. */
  function* waitForRepository(): Generator<Task, void, unknown> {
    yield* sleepUntil(
      context,
      new Date(context.df.currentUtcDateTime.getTime() + repositoryBusyWaitMs(++busy)),
    );
  }

  for (let loop = 0; loop < DRIVER_LOOPS_PER_EXECUTION; loop++) {
    const answer: BranchOperationAnswer = yield context.df.callEntity(entity, 'plan', { at: now() });
    if (!answer.ok || !answer.plan)
      throw new Error(`branch ${input.branchKey} could not plan: ${JSON.stringify(answer)}`);
    context.df.setCustomStatus(driverStatus(input, answer.plan.status));
    const step = nextDriverStep(
      answer.plan,
      projectionsDeferredUntil === undefined ? {} : { projectionsDeferredUntil },
    );
    switch (step.type) {
      case 'publish': {
        const result: PublicationResult | RepositoryBusy = yield* activityOr(
          context.df.callActivity(PUBLISH_ACTIVITY, {
            ...input,
            attempt: step.effect.attempt,
          }),
          (message): PublicationResult => ({ outcome: 'transient', cause: { message } }),
        );
        if (isRepositoryBusy(result)) {
          yield* waitForRepository();
          break;
        }
        busy = 0;
        yield apply([{ type: 'RecordPublicationResult', at: now(), attempt: step.effect.attempt, result }]);
        break;
      }
      case 'probe-parent': {
        const head: RemoteHead | RepositoryBusy = yield* activityOr(
          context.df.callActivity(READ_REMOTE_ACTIVITY, { ...input, ref: step.effect.parentBranch }),
          (message): RemoteHead => ({ found: false, cause: message }),
        );
        if (isRepositoryBusy(head)) {
          yield* waitForRepository();
          break;
        }
        busy = 0;
        yield apply([
          {
            type: 'RecordProbeResult',
            at: now(),
            probe: step.effect.probe,
            found: head.found,
            ...(head.cause ? { cause: { message: head.cause } } : {}),
          },
        ]);
        break;
      }
      case 'observe-remote': {
        const head: RemoteHead | RepositoryBusy = yield* activityOr(
          context.df.callActivity(READ_REMOTE_ACTIVITY, { ...input, ref: input.branch }),
          (message): RemoteHead => ({ found: false, cause: message }),
        );
        if (isRepositoryBusy(head)) {
          yield* waitForRepository();
          break;
        }
        busy = 0;
        yield apply([
          {
            type: 'RecordObservation',
            at: now(),
            observation: step.effect.observation,
            ...(head.head ? { head: head.head } : {}),
          },
        ]);
        break;
      }
      case 'pull-request': {
        const result: PullRequestResult = yield* activityOr(
          context.df.callActivity(PULL_REQUEST_ACTIVITY, { ...input, effect: step.effect }),
          (message): PullRequestResult => ({ outcome: 'failed', cause: { message } }),
        );
        yield apply([{ type: 'RecordPullRequest', at: now(), request: step.effect.request, result }]);
        break;
      }
      case 'project': {
        const done: ProjectionDone[] = yield context.df.Task.all(
          step.effects.map((effect) =>
            context.df.callActivity(PROJECT_STATUS_ACTIVITY, { ...input, effect }),
          ),
        );
        const commands: BranchCommand[] = done
          .filter((projection) => projection.settled)
          .map((projection) => ({ type: 'RecordProjection', at: now(), saveId: projection.saveId }));
        if (commands.length > 0) yield apply(commands);
        projectionsDeferredUntil =
          commands.length < done.length
            ? new Date(context.df.currentUtcDateTime.getTime() + PROJECTION_RETRY_MS).toISOString()
            : undefined;
        break;
      }
      case 'sleep': {
        yield* sleepUntil(context, new Date(step.until));
        break;
      }
    }
  }
  context.df.continueAsNew(start);
};

/** Sleeps on a durable timer until `until`, or until a `wake` event comes first. */
function* sleepUntil(context: OrchestrationContext, until: Date): Generator<Task, void, unknown> {
  const timer = context.df.createTimer(until);
  const wake = context.df.waitForExternalEvent(WAKE_EVENT);
  const winner = yield context.df.Task.any([timer, wake]);
  // A pending timer keeps the instance alive until it fires: cancel the loser.
  if (winner !== timer) timer.cancel();
}

/**
 * Runs an activity; an unexpected failure (a bug, a crash of the worker) becomes a result the
 * branch can record, so the eternal driver never dies of one.
 */
function* activityOr<T>(task: Task, onFailure: (message: string) => T): Generator<Task, T, T> {
  try {
    return yield task;
  } catch (error) {
    // The message without the stack trace the host appends (no status should carry one), on one line.
    const message = error instanceof Error ? error.message : String(error);
    const withoutStack = message.split(/\n\s+at /)[0] ?? message;
    return onFailure(scrubSecrets(withoutStack.replace(/\s+/g, ' ').trim().slice(0, 2000)));
  }
}

df.app.orchestration(BRANCH_DRIVER, branchDriver);
