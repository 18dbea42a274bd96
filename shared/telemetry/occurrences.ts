/**
 * What kubescribe tells its operators, in the product's words: each occurrence is emitted once
 * where it happens (an HTTP route, an activity, an entity operation that changed the branch) and
 * read by the sinks (the log and the metrics). Fields are bounded identities from the
 * configuration (target names, branch keys), counts, durations and reasons: never paths, authors,
 * object names or payloads.
 */
import type { SaveOutcome, SaveResolvedReason, WindowCloseReason } from '../branch';

type Occurrence_<T extends string, Body> = { type: T } & Body;

/** Where a batch of cluster changes came in. */
export type IntakeKind = 'watch' | 'audit' | 'snapshot' | 'snapshot-part';

export type Occurrence =
  /** A payload of cluster changes was read: how many it held, took and ignored (by reason). */
  | Occurrence_<
      'ChangesReceived',
      { target: string; intake: IntakeKind; accepted: number; ignored: Readonly<Record<string, number>> }
    >
  /**
   * Events a source sent for a target were not recorded for `reason` (ignored, excluded or refused):
   * logged once per target, source and reason per interval, `events` since the last line, one's message.
   */
  | Occurrence_<
      'EventsNotRecorded',
      { target: string; source: string; reason: string; events: number; message: string }
    >
  /** A request was answered 4xx; `target` only when it names a configured one. */
  | Occurrence_<
      'RequestRefused',
      {
        route: string;
        status: number;
        reason: string;
        message: string;
        target?: string;
        retryAfterSeconds?: number;
      }
    >
  | Occurrence_<'WindowOpened', { branch: string; target: string }>
  | Occurrence_<
      'WindowClosed',
      { branch: string; target?: string; reason: WindowCloseReason; changes: number }
    >
  /** Writes of a branch landed on its remote. `latenciesMs`: each change from receipt to pushed. */
  | Occurrence_<
      'PublicationLanded',
      {
        branch: string;
        targets: string[];
        commit: string;
        writes: number;
        changes: number;
        evidence: 'pushed' | 'remote-settled';
        latenciesMs: number[];
      }
    >
  | Occurrence_<
      'PublicationAttemptFailed',
      { branch: string; kind: string; reason: string; nextRetryAt: string; delayMs: number }
    >
  /** Changes of an accepted request were refused on arrival (the branch cannot hold them), by reason. */
  | Occurrence_<
      'ChangesNotRecorded',
      { branch: string; target: string; reason: string; changes: number; message: string }
    >
  /** A write that can never be published was set aside. */
  | Occurrence_<'WriteSetAside', { branch: string; target?: string; reason: string }>
  | Occurrence_<
      'SaveResolved',
      { branch: string; saveId: string; outcome: SaveOutcome; reason: SaveResolvedReason; commit?: string }
    >
  /** The branch's budget is full: intake answers 429 until a publication lands. */
  | Occurrence_<'IntakePaused', { branch: string; usedBytes: number; limitBytes: number }>
  | Occurrence_<'IntakeResumed', { branch: string; reason: string }>
  /** Where a branch stands after an entity operation changed it (the gauges). */
  | Occurrence_<
      'BranchMeasured',
      {
        branch: string;
        pendingWrites: number;
        pendingBytes: number;
        /** Changes held for their audit record (a combined feed), and their payload bytes. */
        heldChanges: number;
        heldBytes: number;
        intakePaused: boolean;
        windowOpen: boolean;
        /** The pending retry follows a refusal of the credentials (the status says Stalled). */
        credentialsRefused: boolean;
      }
    >
  /** A source configured with `quietAfter` has sent nothing for that long (reported once). */
  | Occurrence_<'SourceWentQuiet', { source: string; lastHeard: string | null; quietSince: string }>
  /** A source reported quiet sent again. */
  | Occurrence_<'SourceHeardAgain', { source: string }>
  /** A save's outcome was written to its CommitRequest (`settled`), or must be tried again. */
  | Occurrence_<'StatusProjected', { settled: boolean }>
  /** A call to a pull-request host answered: the pull request's state, or the failure's kind. */
  | Occurrence_<
      'PullRequestCalled',
      { outcome: 'open' | 'merged' | 'closed' | 'transient' | 'rejected' | 'credentials-refused' }
    >
  | Occurrence_<'GitCallTimed', { call: string; durationMs: number; ok: boolean }>
  | Occurrence_<'ActivityRan', { activity: string; durationMs: number; ok: boolean }>
  | Occurrence_<'EntityOperationRan', { operation: string; durationMs: number; ok: boolean }>;

export type OccurrenceType = Occurrence['type'];
export type OccurrenceOf<T extends OccurrenceType> = Extract<Occurrence, { type: T }>;
