import { type BranchFact, type BranchState, type FactOf, heldChangesView } from '../../branch';
import { expandOrder } from '../../branch/change-order';
import { changesOf } from '../../branch/record-activity';
import { pendingWrites, storedDecidedAt, storedWriteId } from '../../branch/storage';
import { emit, listening } from '../../telemetry/bus';
import type { Occurrence } from '../../telemetry/occurrences';
import { type BranchEntityState, branchOperationSchemas } from './branch-operations';
import { readStoredState } from './stored-state';

/**
 * What an entity operation that changed its branch tells operators, from the facts it recorded:
 * windows, publications, retries, saves, intake. `before` is the state the operation started from
 * (read only when a publication landed: its writes are gone from `after`).
 */
export function branchOccurrences({
  branch,
  before,
  after,
  facts,
}: {
  branch: string;
  before: () => BranchState | undefined;
  after: BranchState;
  facts: readonly BranchFact[];
}): Occurrence[] {
  if (facts.length === 0) return [];
  const decided = new Map<string, FactOf<'WriteDecided'>['write']>();
  for (const fact of facts) if (fact.type === 'WriteDecided') decided.set(fact.write.id, fact.write);
  const occurrences: Occurrence[] = [];
  for (const fact of facts) {
    switch (fact.type) {
      case 'WindowOpened':
        occurrences.push({ type: 'WindowOpened', branch, target: fact.target });
        break;
      case 'WindowClosed': {
        const write = decided.get(fact.writeId);
        occurrences.push({
          type: 'WindowClosed',
          branch,
          ...(write ? { target: write.target } : {}),
          reason: fact.reason,
          changes: write ? changesOf(write) : 0,
        });
        break;
      }
      case 'PublicationConfirmed': {
        const landed = before();
        if (landed) occurrences.push(publicationLanded(branch, landed, fact));
        break;
      }
      case 'PublicationFailed':
        occurrences.push({
          type: 'PublicationAttemptFailed',
          branch,
          kind: fact.cause.kind,
          reason: fact.cause.message,
          nextRetryAt: fact.retryAt,
          delayMs: fact.delayMs,
        });
        break;
      case 'ChangesRefused':
        occurrences.push(...changesNotRecorded(branch, fact));
        break;
      case 'WriteRefused':
        occurrences.push({
          type: 'WriteSetAside',
          branch,
          ...(fact.target ? { target: fact.target } : {}),
          reason: fact.cause,
        });
        break;
      case 'SaveResolved':
        occurrences.push({
          type: 'SaveResolved',
          branch,
          saveId: fact.saveId,
          outcome: fact.outcome,
          reason: fact.reason,
          ...(fact.commit ? { commit: fact.commit } : {}),
        });
        break;
      case 'IntakePaused':
        occurrences.push({
          type: 'IntakePaused',
          branch,
          usedBytes: fact.usedBytes,
          limitBytes: fact.limitBytes,
        });
        break;
      case 'IntakeResumed':
        occurrences.push({ type: 'IntakeResumed', branch, reason: fact.reason });
        break;
      default:
        break;
    }
  }
  const held = heldChangesView(after);
  occurrences.push({
    type: 'BranchMeasured',
    branch,
    pendingWrites: after.pending.length,
    pendingBytes: after.pendingBytes,
    heldChanges: held.count,
    heldBytes: held.bytes,
    intakePaused: after.publication.intakePaused,
    windowOpen: after.window !== null,
    credentialsRefused:
      after.publication.retry?.cause.kind === 'credentials-refused' ||
      after.proposal?.lastError?.kind === 'credentials-refused',
  });
  return occurrences;
}

/** The writes a confirmation names, as they were pending: their targets, changes and each change's wait. */
function publicationLanded(
  branch: string,
  before: BranchState,
  fact: FactOf<'PublicationConfirmed'>,
): Occurrence {
  const confirmedMs = Date.parse(fact.at);
  const ids = new Set(Object.keys(fact.commits));
  const targets = new Set<string>();
  let writes = 0;
  let changes = 0;
  for (const write of pendingWrites(before)) {
    if (!ids.has(write.id)) continue;
    writes++;
    targets.add(write.target);
    changes += changesOf(write);
  }
  const latenciesMs: number[] = [];
  for (const stored of before.pending) {
    if (!ids.has(storedWriteId(stored))) continue;
    // each change of a run was received with its request
    for (const [, , n, receivedMs] of stored.runs ?? [])
      for (let change = 0; change < n; change++) latenciesMs.push(Math.max(0, confirmedMs - receivedMs));
    if (!stored.ord) continue;
    const decidedMs = Date.parse(storedDecidedAt(stored));
    for (const order of stored.ord) {
      const receivedMs = expandOrder(order, decidedMs).atMs;
      if (receivedMs !== undefined) latenciesMs.push(Math.max(0, confirmedMs - receivedMs));
    }
  }
  return {
    type: 'PublicationLanded',
    branch,
    targets: [...targets].sort(),
    commit: fact.head,
    writes,
    changes,
    evidence: fact.evidence,
    latenciesMs,
  };
}

/**
 * Tells operators what one entity operation did: its duration, and what it changed on the branch.
 * Entity operations run once per delivery (they are not replayed as orchestrations are).
 */
export function reportBranchOperation({
  branch,
  operation,
  stored,
  state,
  facts,
  ok,
  durationMs,
}: {
  branch: string;
  operation: string;
  stored: unknown;
  state: BranchEntityState;
  facts: readonly BranchFact[];
  ok: boolean;
  durationMs: number;
}): void {
  const known = operation in branchOperationSchemas ? operation : 'unknown';
  emit({ type: 'EntityOperationRan', operation: known, durationMs, ok });
  if (!ok || !listening()) return;
  const before = () => {
    const reading = readStoredState(stored);
    return reading.ok ? reading.state.branch : undefined;
  };
  for (const occurrence of branchOccurrences({ branch, before, after: state.branch, facts }))
    emit(occurrence);
}

/** One occurrence per reason the changes were refused for, with the first one's message. */
function changesNotRecorded(branch: string, fact: FactOf<'ChangesRefused'>): Occurrence[] {
  const byReason = new Map<string, { changes: number; message: string }>();
  for (const { reason, message } of fact.changes) {
    const seen = byReason.get(reason);
    if (seen) seen.changes++;
    else byReason.set(reason, { changes: 1, message });
  }
  return [...byReason].map(([reason, { changes, message }]) => ({
    type: 'ChangesNotRecorded',
    branch,
    target: fact.target,
    reason,
    changes,
    message,
  }));
}
