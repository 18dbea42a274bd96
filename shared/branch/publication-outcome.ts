/**
 * How a publication attempt ends, spelled once for the Git executor's result (`PublishResult.kind`)
 * and the branch's command (`RecordPublicationResult`'s `outcome`).
 */
export type PublicationOutcome = 'published' | 'settled' | FailedOutcome | 'writeRefused';

/** The outcomes that leave the work pending, to be retried. */
export const FAILED_OUTCOMES = [
  'remoteMoved',
  'transient',
  'rejected',
  'parentMissing',
  'credentialsRefused',
] as const;
export type FailedOutcome = (typeof FAILED_OUTCOMES)[number];

/**
 * Each failed outcome with the kind its failure is recorded under (`FailureCause.kind`). Both
 * spellings are durable (signals carry outcomes; facts and the stored state carry kinds), so neither
 * can change; this table is the one place that pairs them.
 */
export const FAILURE_KINDS = {
  remoteMoved: 'remote-moved',
  transient: 'transient',
  rejected: 'rejected',
  parentMissing: 'parent-missing',
  /** The remote (or its proxy) refused the credentials: only an operator can mend it. */
  credentialsRefused: 'credentials-refused',
} as const satisfies Record<FailedOutcome, string>;

/** Why a publication (or a probe) failed. */
export type FailureKind = (typeof FAILURE_KINDS)[FailedOutcome];

/**
 * How a call to the pull-request host fails, in a push's words: the same three a host's HTTP answer
 * is classified as (`forgeFailure`), each recorded under its `FAILURE_KINDS` kind.
 */
export const PULL_REQUEST_FAILURES = ['transient', 'rejected', 'credentialsRefused'] as const;
export type PullRequestFailure = (typeof PULL_REQUEST_FAILURES)[number];
/** The kind a failed call to the pull-request host is recorded and shown under. */
export type PullRequestFailureKind = (typeof FAILURE_KINDS)[PullRequestFailure];
