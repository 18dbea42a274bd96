/**
 * Durable names live in orchestration history: renaming one strands running instances. They are
 * pinned by a test; change them only with a migration.
 */
export const BRANCH_ENTITY = 'branch';
export const BRANCH_DRIVER = 'branch-driver';
export const WITHDRAW_SAVE = 'withdraw-save';
export const PUBLISH_ACTIVITY = 'publish';
export const READ_REMOTE_ACTIVITY = 'read-remote';
export const PROJECT_STATUS_ACTIVITY = 'project-status';
export const WAKE_EVENT = 'wake';
