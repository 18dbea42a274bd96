import type { CommandOf } from './commands';
import { type Decision, record } from './context';

/**
 * Records changes a request carried that the branch cannot hold (the HTTP layer found them out of
 * bounds before answering): they count among the target's refused writes, with their reasons, so
 * no change acknowledged in an answer vanishes without a trace.
 */
export function refuseChanges(decision: Decision, command: CommandOf<'RefuseChanges'>): void {
  record(decision, { type: 'ChangesRefused', target: command.target, changes: command.changes });
}
