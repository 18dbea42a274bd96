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
export const WAKE_EVENT = 'wake';

/** The durable instance id of a branch's driver orchestration (one per branch: starting it twice is a no-op). */
export function driverInstanceId(branchKey: string): string {
  return `branch-driver-${branchKey}`;
}

/** The instance id of one withdrawal: a repeated DELETE at the same instant asks once. */
export function withdrawalInstanceId(branchKey: string, saveId: string, at: string): string {
  return `withdraw-${branchKey}-${Date.parse(at)}-${saveId.replace(/[^A-Za-z0-9-]/g, '_')}`;
}
