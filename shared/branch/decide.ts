import type { BranchCommand } from './commands';
import { changeSettings, configureBranch, suspension } from './configure';
import type { Decision } from './context';
import { fireDueDeadlines, reconcileDeadlines } from './deadlines';
import { discardPendingWrites } from './discard';
import { InvalidBranchCommand } from './errors';
import type { BranchFact } from './facts';
import { countNotRecorded } from './not-recorded';
import { bringPullRequestCallForward, planProposal, recordPullRequest } from './proposal';
import {
  bringRetryForward,
  planPublication,
  recordObservation,
  recordProbeResult,
  recordPublicationResult,
  requestObservation,
  updateIntake,
} from './publication';
import { refuseChanges } from './refusals';
import { expireDueSaves, forgetExpiredReceipts, recordProjection, registerSave, withdrawSave } from './saves';
import { applySnapshot } from './snapshots';
import type { BranchState } from './state';
import { toIso, toMs } from './time';
import { admitChanges, admitRun, attachWaitingSave, closeWindowIfDue, releaseHeldChanges } from './windows';

function decideCommand(decision: Decision, command: BranchCommand): void {
  switch (command.type) {
    case 'AdmitChanges':
      admitChanges(decision, command);
      break;
    case 'AdmitRun':
      admitRun(decision, command);
      break;
    case 'RefuseChanges':
      refuseChanges(decision, command);
      break;
    case 'CountNotRecorded':
      countNotRecorded(decision, command);
      break;
    case 'RegisterSave':
      registerSave(decision, command);
      break;
    case 'WithdrawSave':
      withdrawSave(decision, command);
      break;
    case 'DiscardPendingWrites':
      discardPendingWrites(decision, command);
      break;
    case 'ApplySnapshot':
      applySnapshot(decision, command);
      break;
    case 'RefreshRemote':
      bringRetryForward(decision);
      bringPullRequestCallForward(decision);
      requestObservation(decision);
      break;
    case 'Tick':
      break;
    case 'RecordPublicationResult':
      recordPublicationResult(decision, command);
      break;
    case 'RecordProbeResult':
      recordProbeResult(decision, command);
      break;
    case 'RecordObservation':
      recordObservation(decision, command);
      break;
    case 'RecordProjection':
      recordProjection(decision, command);
      break;
    case 'RecordPullRequest':
      recordPullRequest(decision, command);
      break;
    case 'ChangeSettings':
      changeSettings(decision, command);
      break;
    case 'ConfigureBranch':
      configureBranch(decision, command);
      break;
    case 'SuspendTarget':
      suspension(decision, command.target, 'operator', true);
      break;
    case 'ResumeTarget':
      suspension(decision, command.target, 'operator', false);
      break;
    default: {
      const unknown: never = command;
      throw new InvalidBranchCommand({
        commandType: String((unknown as { type?: unknown }).type),
        problem: 'unknown type',
      });
    }
  }
}

/**
 * Decides one command against the state and returns the decision with its folded state. Every
 * command first lets due deadlines fire (windows close, held changes past their attribution wait
 * are admitted, then waiting saves expire, before any attach), then does its own work, then the branch catches up: a free window is offered to the
 * waiting saves, whatever became due at `at` is decided (so no deadline is ever left due at or
 * before the decision's time), publication is planned when due, intake pauses or resumes, old
 * receipts go, and the recorded deadlines are brought in line with the state.
 */
function run(command: BranchCommand, state: BranchState): { facts: BranchFact[]; state: BranchState } {
  const atMs = toMs(command.at);
  if (!Number.isFinite(atMs)) {
    throw new InvalidBranchCommand({
      commandType: command.type,
      problem: `"at" is not an ISO-8601 instant: ${command.at}`,
    });
  }
  const decision: Decision = { at: toIso(atMs), atMs, state, facts: [], fired: [] };
  fireDueDeadlines(decision);
  closeWindowIfDue(decision);
  releaseHeldChanges(decision);
  expireDueSaves(decision);
  forgetExpiredReceipts(decision);
  decideCommand(decision, command);
  attachWaitingSave(decision);
  closeWindowIfDue(decision);
  expireDueSaves(decision);
  planPublication(decision);
  planProposal(decision);
  updateIntake(decision);
  forgetExpiredReceipts(decision);
  reconcileDeadlines(decision);
  return { facts: decision.facts, state: decision.state };
}

/**
 * Decides what a command means for the branch, as facts (`[]`: nothing happened).
 * @example decide({ type: 'Tick', at: '2026-01-01T00:00:05Z' }, state) // → [DeadlineFired, WindowClosed, …]
 */
export function decide(command: BranchCommand, state: BranchState): BranchFact[] {
  return run(command, state).facts;
}

/**
 * Decides a command and returns its facts with the state they fold into (what the entity stores).
 * @example const { facts, state: next } = handle(state, command);
 */
export function handle(
  state: BranchState,
  command: BranchCommand,
): { facts: BranchFact[]; state: BranchState } {
  return run(command, state);
}
