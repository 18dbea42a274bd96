import type { CommandOf } from './commands';
import { type Decision, record, targetSettings } from './context';
import type { SuspendedBy } from './facts';
import { type BranchLimits, stricterPrune, type TargetSettings } from './settings';
import { storedWriteId } from './storage';

function sameSettings(a: TargetSettings, b: TargetSettings): boolean {
  return (
    a.path === b.path &&
    a.prune === b.prune &&
    a.window.idleTimeoutMs === b.window.idleTimeoutMs &&
    a.window.maxDurationMs === b.window.maxDurationMs &&
    a.attributionWaitMs === b.attributionWaitMs
  );
}

/**
 * Changes a target's settings at their effective points: window timing applies to the next window
 * (the open one keeps its snapshot), a prune mode applies to the next decided write and tightens
 * (never loosens) retained writes before their next attempt, and a new parent branch makes a
 * pending parent probe due at once.
 */
export function changeSettings(decision: Decision, command: CommandOf<'ChangeSettings'>): void {
  const current = targetSettings(decision.state, command.target);
  const attributionWaitMs = command.attributionWaitMs ?? current.attributionWaitMs ?? 0;
  const next: TargetSettings = {
    path: command.path ?? current.path,
    prune: command.prune ?? current.prune,
    window: command.window ?? current.window,
    // kept only when changes are held: settings stored before it read as they were
    ...(attributionWaitMs > 0 ? { attributionWaitMs } : {}),
  };
  if (!decision.state.targets[command.target] || !sameSettings(current, next)) {
    record(decision, { type: 'TargetConfigured', target: command.target, settings: next });
  }
  const prune = command.prune;
  if (prune !== undefined) {
    const origins = decision.state.origins;
    const looser = decision.state.pending
      .filter((write) => {
        const origin = origins[write.by];
        return origin?.target === command.target && stricterPrune(origin.prune, prune) !== origin.prune;
      })
      .map(storedWriteId);
    if (looser.length > 0)
      record(decision, { type: 'PruneTightened', target: command.target, prune, writeIds: looser });
  }
  if (command.suspend !== undefined) {
    suspension(decision, command.target, 'configuration', command.suspend);
  }
  if (
    command.publish !== undefined &&
    (command.publish === 'propose') !== (decision.state.proposal !== undefined)
  ) {
    record(decision, { type: 'PublishModeChanged', publish: command.publish });
  }
  if (command.parentBranch !== undefined && command.parentBranch !== decision.state.parentBranch) {
    const recovering = decision.state.publication.recovery !== undefined && decision.state.publication.retry;
    record(decision, {
      type: 'ParentBranchChanged',
      parentBranch: command.parentBranch,
      ...(recovering ? { probeDueAt: decision.at } : {}),
    });
  }
}

/**
 * Suspends a target for `by`, or lifts that suspension (a target stays suspended while the other
 * one holds). Its accepted work is kept; `planPublication` holds the branch while it is pending.
 */
export function suspension(decision: Decision, target: string, by: SuspendedBy, suspend: boolean): void {
  const current = decision.state.suspended[target];
  if (suspend && !current?.[by]) record(decision, { type: 'TargetSuspended', target, by });
  if (!suspend && current?.[by]) record(decision, { type: 'TargetResumed', target, by });
}

/** Changes branch-wide limits; they apply from the next decision that reads them. */
export function configureBranch(decision: Decision, command: CommandOf<'ConfigureBranch'>): void {
  const current = decision.state.limits;
  const limits: BranchLimits = { ...current, ...command.limits };
  if (JSON.stringify(limits) !== JSON.stringify(current))
    record(decision, { type: 'BranchLimitsChanged', limits });
}
