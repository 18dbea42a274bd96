import { discardHeldChanges } from './attribution';
import type { CommandOf } from './commands';
import { type Decision, record } from './context';
import { inFlightWriteIds, storedWriteId } from './storage';

/**
 * An operator discards the writes a branch holds and can never publish where they belong (its
 * repository was rebound): every pending write not in an attempt in flight is dropped, and each
 * save attached to one resolves `Failed`, saying who discarded it and why. A write being pushed is
 * left to its attempt, which either lands it or leaves it for the next discard. Changes held for
 * their audit record (`attribution.ts`) are dropped with the writes.
 */
export function discardPendingWrites(decision: Decision, command: CommandOf<'DiscardPendingWrites'>): void {
  discardHeldChanges(decision, command.reason);
  const inFlight = new Set(inFlightWriteIds(decision.state));
  const writes = decision.state.pending.filter((write) => !inFlight.has(storedWriteId(write)));
  if (writes.length === 0) return;
  record(decision, { type: 'WritesDiscarded', writeIds: writes.map(storedWriteId), reason: command.reason });
  for (const write of writes) {
    for (const saveId of write.saveIds ?? []) {
      record(decision, {
        type: 'SaveResolved',
        saveId,
        outcome: 'Failed',
        reason: 'discarded',
        writeId: storedWriteId(write),
        cause: `discarded by an operator: ${command.reason}`,
      });
    }
  }
}
