import { createHash } from 'node:crypto';

/**
 * Every durable name and instance id of the app. Names live in orchestration history: renaming one
 * strands running instances. They are pinned by a test; change them only with a migration.
 */
export const BRANCH_ENTITY = 'branch';
export const BRANCH_DRIVER = 'branch-driver';
export const WITHDRAW_SAVE = 'withdraw-save';
export const PUBLISH_ACTIVITY = 'publish';
export const READ_REMOTE_ACTIVITY = 'read-remote';
export const PROJECT_STATUS_ACTIVITY = 'project-status';
export const PULL_REQUEST_ACTIVITY = 'pull-request';
export const WAKE_EVENT = 'wake';
export const DRIVER_KEEPER = 'driver-keeper';

/**
 * The version of the branch driver's code (orchestrators/branch-driver.ts and the driver modules it
 * runs), written to host.json as `extensions.durableTask.defaultVersion` with `CurrentOrOlder` and
 * `Reject`: a worker leaves a driver (or withdrawal) started by newer code for a newer worker, and
 * the driver itself ends one started by older code, which is then started again under this version
 * (docs/upgrades.md). Two dotted numbers, so the engine compares it as a System.Version; raise it
 * with every change to that code. A test pins the code to it.
 */
export const DRIVER_VERSION = '4.1';

/** The durable instance id of a branch's driver orchestration (one per branch: starting it twice is a no-op). */
export function driverInstanceId(branchKey: string): string {
  return `branch-driver-${branchKey}`;
}

/**
 * The instance id of one withdrawal: a repeated DELETE at the same instant asks once. A save id
 * may be 256 characters, so it enters as a digest: the Durable Task Scheduler takes ids of at most
 * 100 characters (this one is 66).
 */
export function withdrawalInstanceId(branchKey: string, saveId: string, at: string): string {
  const save = createHash('sha256').update(saveId).digest('hex').slice(0, 16);
  return `withdraw-${branchKey}-${Date.parse(at)}-${save}`;
}

/** The longest instance id any backend takes (the Durable Task Scheduler's). */
export const MAX_INSTANCE_ID_CHARS = 100;
