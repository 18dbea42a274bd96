/**
 * Decides what runs next: instances and entities with queued messages (one episode or batch at a
 * time per target) and activity work items, each within its host.json concurrency limit; and fires
 * durable timers. Knows when the host is idle, for `waitForIdle()`. Work is taken up as soon as it
 * is queued, or, when the engine polls its queues (Azure Storage), at the next poll.
 */
import { runActivity } from './activity-runner';
import { CONTROL_QUEUE_BATCH_SIZE } from './engine-semantics';
import { runEntityBatch } from './entity-runner';
import type { HostContext } from './host-context';
import { runEpisode } from './orchestration-runner';
import { EventType } from './protocol';
import type { TimerRow } from './store';

const RETRY_AFTER_FAILURE_MS = 1000;

/** Concurrency and size limits, from host.json. */
export interface Limits {
  maxConcurrentOrchestrations: number;
  maxConcurrentEntities: number;
  maxConcurrentActivities: number;
  maxEntityBatch: number;
  activityTimeoutMs: number;
  /** host.json's storageProvider.maxQueuePollingInterval: how long an idle queue goes unpolled. */
  maxQueuePollingIntervalMs: number;
}

/** Creates the dispatcher; `host` callbacks (wake, queueActivities, armTimers) should call into it. */
export function createDispatcher(
  host: Omit<HostContext, 'wake' | 'queueActivities' | 'armTimers'>,
  limits: Limits,
) {
  const ready = new Set<string>();
  const running = new Set<string>();
  const activities: number[] = [];
  const queuedActivities = new Set<number>();
  let activitiesRunning = 0;
  let orchestrationsRunning = 0;
  let entitiesRunning = 0;
  const timers = new Map<number, () => void>();
  let firing = 0;
  let scheduled = false;
  let idleWaiters: (() => void)[] = [];
  let failure: unknown;
  let paused = false;

  // Polled queues: what was queued since the last poll waits for the next one.
  const polls = host.engine.pollsQueues;
  const unfetched = new Set<string>();
  const unfetchedActivities: number[] = [];
  const control = poller(() => {
    for (const t of unfetched) ready.add(t);
    unfetched.clear();
  });
  const workItems = poller(() => {
    for (const id of unfetchedActivities.splice(0)) activities.push(id);
  });
  // A work item holds what one fetch took: ControlQueue.GetMessagesAsync asks for ControlQueueBatchSize.
  const maxEntityBatch = polls
    ? Math.min(limits.maxEntityBatch, CONTROL_QUEUE_BATCH_SIZE)
    : limits.maxEntityBatch;

  const ctx: HostContext = {
    ...host,
    wake: (targets) => {
      for (const t of targets) (polls ? unfetched : ready).add(t);
      if (polls && unfetched.size > 0) control.request();
      schedule();
    },
    queueActivities: (ids) => {
      for (const id of ids) {
        if (queuedActivities.has(id)) continue;
        queuedActivities.add(id);
        (polls ? unfetchedActivities : activities).push(id);
      }
      if (polls && unfetchedActivities.length > 0) workItems.request();
      schedule();
    },
    armTimers: (rows) => {
      for (const row of rows) arm(row);
    },
  };

  /**
   * One queue's poller (TaskHubQueue's BackoffPollingHelper): after an empty poll it waits,
   * backing off from 50 ms to maxQueuePollingInterval, and nothing resets the backoff (no caller
   * of BackoffPollingHelper.Reset), so an idle queue is polled once every interval. A poll takes
   * what is queued, then polls again at once and finds the queue empty: what is queued meanwhile
   * waits for the next interval. Polls fall on a grid with a seeded phase.
   */
  function poller(take: () => void) {
    const interval = limits.maxQueuePollingIntervalMs;
    let nextPollAt = host.clock.now() + Math.floor(host.engine.random() * interval);
    let armed = false;
    return {
      request(): void {
        if (armed) return;
        armed = true;
        const now = host.clock.now();
        if (nextPollAt < now) nextPollAt += Math.ceil((now - nextPollAt) / interval) * interval;
        host.clock.at(nextPollAt, () => {
          armed = false;
          nextPollAt += interval;
          take();
          settle();
        });
      },
    };
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  }

  function settle(): void {
    schedule();
  }

  function pump(): void {
    scheduled = false;
    if (paused || host.stopping()) return;
    for (const target of ready) {
      if (
        orchestrationsRunning >= limits.maxConcurrentOrchestrations &&
        entitiesRunning >= limits.maxConcurrentEntities
      ) {
        break;
      }
      if (running.has(target)) continue;
      const isEntity = target.startsWith('@');
      if (
        isEntity
          ? entitiesRunning >= limits.maxConcurrentEntities
          : orchestrationsRunning >= limits.maxConcurrentOrchestrations
      ) {
        continue;
      }
      ready.delete(target);
      running.add(target);
      if (isEntity) entitiesRunning++;
      else orchestrationsRunning++;
      const work: Promise<unknown> = isEntity
        ? runEntityBatch(ctx, target, maxEntityBatch)
        : runEpisode(ctx, target);
      let failed = false;
      let rejected = false;
      work
        .then((result) => {
          // refused for its version, or every message hidden until its visibility timeout
          rejected = result === 'rejected' || result === 'held';
        })
        .catch((e: unknown) => {
          failure = e;
          failed = true;
          host.log('error', isEntity ? 'EntityBatchFailed' : 'OrchestrationFailed', {
            target,
            error: e instanceof Error ? e.stack : String(e),
          });
        })
        .finally(() => {
          running.delete(target);
          if (isEntity) entitiesRunning--;
          else orchestrationsRunning--;
          // More messages may have arrived (or been left by a batch limit): look again; after an
          // unexpected failure, only after a pause, so a poison message cannot spin the host. Work
          // refused for its version waits for the next message or the next start. Messages queued
          // while it ran wait for the next poll when queues are polled; the rest of a fetch does not.
          if (failed) setTimeout(() => ctx.wake([target]), RETRY_AFTER_FAILURE_MS).unref();
          else if (
            !rejected &&
            !host.stopping() &&
            !unfetched.has(target) &&
            host.store.peek(target, 1).length > 0
          )
            ready.add(target);
          settle();
        });
    }
    while (activitiesRunning < limits.maxConcurrentActivities && activities.length > 0) {
      const id = activities.shift()!;
      activitiesRunning++;
      let aborted = false;
      runActivity(ctx, id, limits.activityTimeoutMs)
        .then((outcome) => {
          aborted = outcome === 'aborted';
        })
        .catch((e: unknown) => {
          failure = e;
          host.log('error', 'ActivityFailed', {
            workId: id,
            error: e instanceof Error ? e.stack : String(e),
          });
        })
        .finally(() => {
          activitiesRunning--;
          queuedActivities.delete(id);
          // cut short by a worker restart: the work item is still stored, so it runs again
          if (aborted && !host.stopping()) ctx.queueActivities([id]);
          settle();
        });
    }
    if (isIdle()) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  function arm(row: TimerRow): void {
    if (timers.has(row.id)) return;
    const cancel = host.clock.at(row.fireAt, () => fire(row));
    timers.set(row.id, cancel);
  }

  function fire(row: TimerRow): void {
    timers.delete(row.id);
    if (host.stopping()) return;
    firing++;
    try {
      // The timer row is deleted as the TimerFired event is queued: it fires once, even after a crash.
      const fired = host.store.transaction(() => {
        if (!host.store.deleteTimer(row.id)) return false;
        host.store.enqueue(row.instanceId, {
          kind: 'event',
          executionId: row.executionId,
          event: {
            EventType: EventType.TimerFired,
            EventId: -1,
            TimerId: row.timerId,
            FireAt: new Date(row.fireAt).toISOString(),
          },
        });
        return true;
      });
      if (fired) ctx.wake([row.instanceId]);
    } finally {
      firing--;
      settle();
    }
  }

  function isIdle(): boolean {
    return (
      ready.size === 0 &&
      running.size === 0 &&
      activities.length === 0 &&
      activitiesRunning === 0 &&
      firing === 0 &&
      !scheduled
    );
  }

  return {
    ctx,
    /** Loads queued work left by an earlier run (after a crash or stop) and arms stored timers. */
    recover(): { messages: number; activities: number; timers: number } {
      const targets = host.store.targetsWithMessages();
      const activityIds = host.store.activityIds();
      const stored = host.store.allTimers();
      ctx.wake(targets);
      ctx.queueActivities(activityIds);
      ctx.armTimers(stored);
      return { messages: targets.length, activities: activityIds.length, timers: stored.length };
    },
    /** Resolves when nothing is queued or running and no timer is due (future timers may be pending). */
    waitForIdle(): Promise<void> {
      if (failure) return Promise.reject(failure);
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        schedule();
      });
    },
    /** Starts no new work; resolves when work in flight ends, or after `boundMs`, whichever is first. */
    async drain(boundMs: number): Promise<void> {
      paused = true;
      const deadline = Date.now() + boundMs;
      while ((running.size > 0 || activitiesRunning > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    disarmTimers(): void {
      for (const cancel of timers.values()) cancel();
      timers.clear();
    },
  };
}
