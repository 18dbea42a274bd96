/**
 * A save's phases and outcomes, as the branch records them and as the HTTP contract and a
 * CommitRequest's `.status` show them. A leaf of its own so that the Kubernetes adapter can validate
 * the status it projects without depending on the branch state machine.
 */
export const SAVE_PHASES = [
  'WaitingForWindow',
  'CollectingWindow',
  'WaitingForPush',
  // publish: propose: the save's commit is in an open pull request, not yet merged
  'Proposed',
  'Resolved',
] as const;
export const SAVE_OUTCOMES = [
  'Committed',
  'AlreadyPresent',
  'NoWindow',
  'WindowMismatch',
  'Withdrawn',
  'Failed',
  // publish: propose: the pull request that held the save's commit was closed without merging
  'PullRequestClosed',
] as const;

/** A save's progress, as the API reports it. */
export type SavePhase = (typeof SAVE_PHASES)[number];
/** How a save ended. */
export type SaveOutcome = (typeof SAVE_OUTCOMES)[number];
