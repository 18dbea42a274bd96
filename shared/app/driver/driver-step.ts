import type { BranchEffect, PublicationSummary } from '../../branch';
import type { BranchPlan } from '../entity/branch-operations';

/** What the branch driver does next, decided from the branch's plan; the orchestrator only carries it out. */
export type DriverStep =
  | { type: 'publish'; effect: PublicationSummary }
  | { type: 'probe-parent'; effect: Extract<BranchEffect, { type: 'probe-parent' }> }
  | { type: 'observe-remote'; effect: Extract<BranchEffect, { type: 'observe-remote' }> }
  | { type: 'pull-request'; effect: Extract<BranchEffect, { type: 'pull-request' }> }
  | { type: 'project'; effects: Extract<BranchEffect, { type: 'project' }>[] }
  | { type: 'sleep'; until: string; reason: 'deadline' | 'heartbeat' };

/** An idle driver still wakes this often, in case a `wake` event was lost around `continueAsNew`. */
export const DRIVER_HEARTBEAT_MS = 60 * 1000;

/** How many loops one driver execution runs before `continueAsNew`, to keep its history short. */
export const DRIVER_LOOPS_PER_EXECUTION = 10;

/** After a projection fails (the Kubernetes API is unreachable), projections wait this long. */
export const PROJECTION_RETRY_MS = 30 * 1000;

/**
 * The driver's next step: Git work first (one activity at a time, publication before probes and
 * observations), then the call to the host a proposing branch owes, then status projections unless they are deferred after a failure, else sleep
 * until the earliest deadline, the end of the projection deferral, or the heartbeat.
 */
export function nextDriverStep(
  plan: BranchPlan,
  options: { projectionsDeferredUntil?: string } = {},
): DriverStep {
  const publish = plan.effects.find((effect) => effect.type === 'publish');
  if (publish) return { type: 'publish', effect: publish };
  const probe = plan.effects.find((effect) => effect.type === 'probe-parent');
  if (probe) return { type: 'probe-parent', effect: probe };
  const observe = plan.effects.find((effect) => effect.type === 'observe-remote');
  if (observe) return { type: 'observe-remote', effect: observe };
  const pullRequest = plan.effects.find((effect) => effect.type === 'pull-request');
  if (pullRequest) return { type: 'pull-request', effect: pullRequest };
  const projections = plan.effects.filter((effect) => effect.type === 'project');
  const deferredUntil = options.projectionsDeferredUntil;
  const deferred = deferredUntil !== undefined && Date.parse(deferredUntil) > Date.parse(plan.at);
  if (projections.length > 0 && !deferred) return { type: 'project', effects: projections };
  const wakeups: { until: string; reason: 'deadline' | 'heartbeat' }[] = [
    { until: new Date(Date.parse(plan.at) + DRIVER_HEARTBEAT_MS).toISOString(), reason: 'heartbeat' },
  ];
  if (plan.nextDeadline !== undefined) wakeups.push({ until: plan.nextDeadline, reason: 'deadline' });
  if (projections.length > 0 && deferredUntil !== undefined)
    wakeups.push({ until: deferredUntil, reason: 'deadline' });
  const earliest = wakeups.reduce((a, b) => (Date.parse(b.until) < Date.parse(a.until) ? b : a));
  return { type: 'sleep', ...earliest };
}

/** The first wait of a driver whose Git activity found its repository busy (RepositoryBusy). */
export const REPOSITORY_BUSY_FIRST_WAIT_MS = 250;
/** The longest: a repository whose calls hang stays busy for their bound, which may be minutes. */
export const REPOSITORY_BUSY_MAX_WAIT_MS = 16 * 1000;

/**
 * How long a driver waits before asking again after `times` RepositoryBusy answers in a row: a
 * quarter second, doubling up to 16 s, so a branch behind a repository busy with healthy
 * publications goes soon after one of them, and a repository that stays stalled is not asked over
 * and over.
 */
export function repositoryBusyWaitMs(times: number): number {
  const exponent = Math.min(Math.max(times - 1, 0), 6);
  return Math.min(REPOSITORY_BUSY_FIRST_WAIT_MS * 2 ** exponent, REPOSITORY_BUSY_MAX_WAIT_MS);
}
