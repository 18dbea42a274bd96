/**
 * The branch state machine: everything one repository branch decides, as a pure decider
 * (`decide`, `evolve`, `initialState`) with the effects, deadlines and status derived from state.
 */
export { type HeldChangesView, heldChangesView } from './attribution';
export {
  type AdmittedChange,
  authorSchema,
  type BranchCommand,
  branchCommandSchema,
  type CommandOf,
  changeSchema,
  NOT_RECORDED_EXAMPLES,
  type PublicationResult,
  type RefusedChange,
} from './commands';
export { decide, handle } from './decide';
export {
  type BranchEffect,
  nextDeadline,
  owedEffects,
  type PlannedEffect,
  type PublicationSummary,
  plannedEffects,
  publicationFor,
} from './effects';
export { InvalidBranchCommand } from './errors';
export { evolve } from './evolve';
export type {
  BranchFact,
  FactOf,
  PublicationPlannedReason,
  SaveResolvedReason,
  SuspendedBy,
  WindowCloseReason,
} from './facts';
export { FIELD_CHARS } from './field-limits';
export {
  type PendingPathView,
  type PendingRunsView,
  pendingPaths,
  type SaveListing,
  targetSaves,
} from './listings';
export type * from './model';
export {
  type NotRecordedExample,
  type NotRecordedTally,
  type NotRecordedView,
  notRecordedView,
} from './not-recorded';
export { type PullRequestView, pullRequestView } from './proposal';
export { type PruneMode, pruneModeSchema } from './prune-mode';
export type { FailedOutcome, PublicationOutcome } from './publication-outcome';
export {
  type BranchLimits,
  branchLimitsSchema,
  DEFAULT_LIMITS,
  type TargetSettings,
  type WindowTiming,
} from './settings';
export {
  type BranchState,
  initialState,
  type PublicationState,
  type RefusedWrite,
  usedBudgetBytes,
} from './state';
export {
  type AdmissionDecision,
  admissionCheck,
  type Condition,
  type PublicationStatus,
  publicationStatus,
  type RefusedWritesView,
  refusedWrites,
  type SaveView,
  type SuspensionView,
  saveStatus,
  suspensionOf,
  type WithdrawAnswer,
  withdrawAnswer,
} from './status';
export { pendingWrites } from './storage';
