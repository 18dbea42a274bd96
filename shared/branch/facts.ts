import type { AdmittedChange, CommandOf, RefusedChange, WrittenRuns } from './commands';
import type {
  Attribution,
  Author,
  DeadlinePurpose,
  FailureCause,
  PendingWrite,
  PruneMode,
  SaveOutcome,
  SavePhase,
  SaveRecord,
  WindowChange,
  WriteRun,
} from './model';
import type { PullRequestFailureKind } from './publication-outcome';
import type { BranchLimits, TargetSettings } from './settings';

/** Why a window closed. */
export type WindowCloseReason =
  | 'idle-timeout'
  | 'max-duration'
  | 'author-or-target-change'
  | 'buffer-limit'
  | 'item-limit'
  | 'scoped-change'
  /** A change admitted inline after runs kept beside the state: the runs publish after inline changes. */
  | 'after-runs'
  | 'resync-before-apply'
  | 'attach-next'
  | 'save-deadline';

/** Why a save resolved the way it did. */
export type SaveResolvedReason =
  | 'published'
  | 'no-diff'
  | 'attach-timeout'
  | 'withdrawn-while-waiting'
  | 'withdrawn-before-registration'
  | 'write-refused'
  | 'discarded'
  | 'merged'
  | 'pull-request-closed';

/** Who suspended a target: its configuration (`suspend: true`) or an operator (`POST …/suspend`). */
export type SuspendedBy = 'configuration' | 'operator';

/** Why a publication attempt was planned now. */
export type PublicationPlannedReason = 'work-pending' | 'cooldown-elapsed' | 'retry-due' | 'parent-returned';

type Fact<T extends string, Body> = { type: T; at: string } & Body;

/**
 * Every decision the branch records, in the product's words. A fact that records a choice carries
 * its `reason`; every fact names the identities it is about.
 */
export type BranchFact =
  | Fact<'TargetConfigured', { target: string; settings: TargetSettings }>
  | Fact<'BranchLimitsChanged', { limits: BranchLimits }>
  | Fact<'TargetSuspended', { target: string; by: SuspendedBy }>
  | Fact<'TargetResumed', { target: string; by: SuspendedBy }>
  | Fact<'ParentBranchChanged', { parentBranch: string | null; probeDueAt?: string }>
  | Fact<'PruneTightened', { target: string; prune: PruneMode; writeIds: string[] }>
  | Fact<
      'WindowOpened',
      {
        windowId: string;
        target: string;
        author: Author;
        attribution: Attribution;
        idleTimeoutMs: number;
        maxDurationMs: number;
        maxDueAt: string;
      }
    >
  | Fact<'RunAdmitted', { windowId: string; run: WriteRun }>
  | Fact<'ChangesAdmitted', { windowId: string; changes: Omit<WindowChange, 'seq'>[]; soleMessage?: string }>
  | Fact<
      'ChangeSkipped',
      {
        windowId: string;
        path: string;
        resourceVersion?: string;
        keptResourceVersion?: string;
        /** Where the newer change is: the open window, or a pending write (`writeId`). */
        writeId?: string;
        reason: 'older-resource-version' | 'older-receipt';
      }
    >
  /** A change with no author is held for the target's attribution wait, for an audit record to claim it. */
  | Fact<'ChangeHeld', { target: string; author: Author; change: AdmittedChange }>
  /** The audit record of a held change's object and resourceVersion arrived: its change is admitted instead, by `by`. */
  | Fact<'HeldChangeClaimed', { target: string; key: string; path: string; by: Author }>
  /** No audit record claimed these held changes within the wait: they are admitted as they came. */
  | Fact<'HeldChangesReleased', { target: string; keys: string[]; reason: 'attribution-wait-passed' }>
  /** An operator discarded the branch's pending work: these held changes go with its writes, never released. */
  | Fact<'HeldChangesDiscarded', { target: string; keys: string[]; reason: string }>
  /** A change makes nothing: its object's same or a newer change was recorded, or it was removed, or it is held. */
  | Fact<
      'ChangeAlreadyRecorded',
      {
        target: string;
        path: string;
        uid?: string;
        resourceVersion?: string;
        keptResourceVersion?: string;
        reason: 'same-resource-version' | 'older-resource-version' | 'object-deleted' | 'already-held';
      }
    >
  /** Changes of these objects were admitted: whichever feed brings the same change second makes nothing. */
  | Fact<
      'ObjectsRecorded',
      { target: string; objects: { uid: string; resourceVersion?: string; deleted?: true }[] }
    >
  | Fact<'WindowClosed', { windowId: string; reason: WindowCloseReason; writeId: string; saveId?: string }>
  | Fact<
      'WriteDecided',
      {
        write: PendingWrite;
        /** Each change's order (`change-order.ts`), for a window's write. */
        order?: string[];
        reason: 'window-closed' | 'snapshot' | 'save-record';
      }
    >
  | Fact<'SnapshotSuperseded', { writeId: string; by: string; reason: 'newer-snapshot-of-same-scope' }>
  | Fact<'SaveRegistered', { save: SaveRecord }>
  | Fact<'SaveSawForeignWindow', { saveId: string; windowId: string }>
  | Fact<'SaveAttached', { saveId: string; windowId: string; idleTimeoutMs: number | null; maxDueAt: string }>
  | Fact<
      'SaveResolved',
      {
        saveId: string;
        outcome: SaveOutcome;
        reason: SaveResolvedReason;
        commit?: string;
        writeId?: string;
        cause?: string;
      }
    >
  | Fact<'WithdrawIgnored', { saveId: string; held: SavePhase }>
  | Fact<
      'PublicationPlanned',
      { attempt: string; writes: string[]; base?: string; reason: PublicationPlannedReason }
    >
  | Fact<
      'PublicationConfirmed',
      {
        attempt: string;
        commits: Record<string, string | null>;
        head: string;
        evidence: 'pushed' | 'remote-settled';
        /** What the publication read of its writes with runs (their subject and first changes). */
        written?: WrittenRuns;
      }
    >
  | Fact<'PublicationFailed', { attempt: string; cause: FailureCause; retryAt: string; delayMs: number }>
  | Fact<
      'WriteRefused',
      { attempt: string; writeId: string; target?: string; cause: string; saveIds: string[] }
    >
  /** Changes a request carried were refused on arrival: each is named with why it is not recorded. */
  | Fact<'ChangesRefused', { target: string; changes: RefusedChange[] }>
  /** Events a request carried were read and not recorded (ignored or excluded): counted by reason. */
  | Fact<'NotRecordedCounted', Omit<CommandOf<'CountNotRecorded'>, 'type' | 'at'>>
  | Fact<'WritesDiscarded', { writeIds: string[]; reason: string }>
  | Fact<'RetryCleared', { reason: 'nothing-owed' }>
  | Fact<'RetryBroughtForward', { reason: 'refresh' }>
  | Fact<'ParentRecoveryOpened', { attempt: string; cause: string }>
  | Fact<'ParentProbePlanned', { probe: string; parentBranch: string | null }>
  | Fact<
      'ParentProbed',
      { probe: string; found: boolean; cause?: string; retryAt?: string; delayMs?: number }
    >
  | Fact<'ParentRecoveryClosed', { reason: 'writes-published' | 'nothing-owed' }>
  | Fact<'IntakePaused', { usedBytes: number; limitBytes: number }>
  | Fact<'IntakeResumed', { reason: 'publication-landed' | 'nothing-owed' }>
  | Fact<'DeadlineScheduled', { purpose: DeadlinePurpose; owner: string; generation: number; dueAt: string }>
  | Fact<'DeadlineCanceled', { purpose: DeadlinePurpose; owner: string; generation: number }>
  | Fact<'DeadlineFired', { purpose: DeadlinePurpose; owner: string; generation: number }>
  | Fact<'OutcomeProjected', { saveId: string }>
  | Fact<'ReceiptsForgotten', { saveIds: string[] }>
  | Fact<'RemoteObservationRequested', { observation: string }>
  | Fact<'RemoteObserved', { observation: string; head?: string }>
  | Fact<'PublishModeChanged', { publish: 'push' | 'propose' }>
  /** A save's commit landed on the proposed branch; it is proposed once the pull request shows it. */
  | Fact<'SavePushedForProposal', { saveId: string; writeId: string; commit: string }>
  | Fact<'SaveProposed', { saveId: string; pullRequest: { number: number; url: string } }>
  | Fact<'PullRequestCallPlanned', { request: string; action: 'sync' | 'read' }>
  /** A refresh while a failed call waits for its retry: the call is due now (a replaced token is tried at once). */
  | Fact<'PullRequestRetryBroughtForward', { reason: 'refresh' }>
  | Fact<
      'PullRequestCallFailed',
      { request: string; cause: string; kind: PullRequestFailureKind; retryAt: string }
    >
  | Fact<
      'PullRequestOpen',
      { request: string; pullRequest: { number: number; url: string }; synced: boolean; nextAt: string }
    >
  | Fact<
      'PullRequestEnded',
      {
        request: string;
        pullRequest: { number: number; url: string };
        state: 'merged' | 'closed';
        mergeCommit?: string;
        restart: boolean;
      }
    >;

/** Narrows `BranchFact` to one type. */
export type FactOf<T extends BranchFact['type']> = Extract<BranchFact, { type: T }>;
