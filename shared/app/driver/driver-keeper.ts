import { nextDeadline, plannedEffects } from '../../branch';
import type { BranchEntityState } from '../entity/branch-operations';
import type { AppRuntime } from '../runtime/app-runtime';
import type { DriverInput } from './driver-input';

/** How often the keeper looks for branches whose driver is gone (the timer's NCRONTAB schedule). */
export const DRIVER_KEEPER_SCHEDULE = '0 */1 * * * *';

/** What the keeper needs of the durable client. */
export interface DriverKeeperPort {
  /** The branch entity's state, read now. */
  read(branchKey: string): Promise<BranchEntityState | undefined>;
  /** Starts the branch's driver when none runs (it failed, was terminated, or never started); true when started. */
  revive(input: DriverInput): Promise<boolean>;
}

/** Whether a branch has anything its driver must still do: an effect owed, or a deadline to wait for. */
export function owesWork(state: BranchEntityState | undefined): boolean {
  if (!state) return false;
  return plannedEffects(state.branch).length > 0 || nextDeadline(state.branch) !== undefined;
}

/**
 * Restarts the drivers of configured branches that owe work and have no running driver. A driver
 * stops for good only when its orchestration fails (after a deployment, code of another driver
 * version ends it) or is terminated; without this, its branch would wait for the next request.
 */
export async function keepDrivers(runtime: AppRuntime, port: DriverKeeperPort): Promise<string[]> {
  const branches = new Map<string, DriverInput>();
  for (const target of runtime.targets.values()) {
    branches.set(target.branch.key, {
      branchKey: target.branch.key,
      repository: target.repository.name,
      branch: target.branch.branch,
    });
  }
  const revived: string[] = [];
  for (const input of branches.values()) {
    if (owesWork(await port.read(input.branchKey)) && (await port.revive(input)))
      revived.push(input.branchKey);
  }
  return revived;
}
