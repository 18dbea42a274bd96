import type { CommandOf } from './commands';
import { type Decision, record, recorded } from './context';
import { FAILURE_KINDS } from './publication-outcome';
import { publicationHeldBy, usedBudgetBytes } from './state';
import { inFlightWriteIds, storedWriteId } from './storage';
import { addMs, toMs } from './time';

/** The delay before the next attempt after `failures` consecutive failures: initial, doubling, capped. */
function retryDelayMs(failures: number, initialMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 40);
  return Math.min(initialMs * 2 ** exponent, maxMs);
}

function nextRetry(decision: Decision, retryAfterMs = 0): { retryAt: string; delayMs: number } {
  const { limits, publication } = decision.state;
  const backoffMs = retryDelayMs(publication.failures + 1, limits.retryInitialMs, limits.retryMaxMs);
  // A remote that said when to come back is not asked sooner, nor later than the retry maximum.
  const delayMs = Math.max(backoffMs, Math.min(retryAfterMs, limits.retryMaxMs));
  return { retryAt: addMs(decision.at, delayMs), delayMs };
}

/** Records an attempt's result; a result for an attempt no longer in flight is stale and changes nothing. */
export function recordPublicationResult(
  decision: Decision,
  command: CommandOf<'RecordPublicationResult'>,
): void {
  const inFlight = decision.state.publication.inFlight;
  if (!inFlight || inFlight.attempt !== command.attempt) return;
  const result = command.result;
  switch (result.outcome) {
    case 'published':
    case 'settled': {
      const planned = new Set(inFlightWriteIds(decision.state));
      const commits: Record<string, string | null> = {};
      for (const [writeId, sha] of Object.entries(result.commits))
        if (planned.has(writeId)) commits[writeId] = sha;
      const writes = decision.state.pending
        .slice(0, inFlight.writes)
        .map((write) => ({ id: storedWriteId(write), saveIds: write.saveIds ?? [] }))
        .filter((write) => commits[write.id] !== undefined);
      record(decision, {
        type: 'PublicationConfirmed',
        attempt: inFlight.attempt,
        commits,
        head: result.head,
        evidence: result.outcome === 'published' ? 'pushed' : 'remote-settled',
        ...(result.written ? { written: result.written } : {}),
      });
      const proposing = decision.state.proposal !== undefined;
      for (const write of writes) {
        const sha = commits[write.id] ?? null;
        for (const saveId of write.saveIds) {
          // a proposed commit is the save's answer only once its pull request is merged
          if (proposing && sha !== null) {
            record(decision, { type: 'SavePushedForProposal', saveId, writeId: write.id, commit: sha });
            continue;
          }
          record(decision, {
            type: 'SaveResolved',
            saveId,
            writeId: write.id,
            ...(sha === null
              ? { outcome: 'AlreadyPresent' as const, reason: 'no-diff' as const }
              : { outcome: 'Committed' as const, reason: 'published' as const, commit: sha }),
          });
        }
      }
      if (decision.state.publication.recovery && decision.state.pending.length === 0) {
        record(decision, { type: 'ParentRecoveryClosed', reason: 'writes-published' });
      }
      return;
    }
    case 'writeRefused': {
      const write = decision.state.pending
        .slice(0, inFlight.writes)
        .find((candidate) => storedWriteId(candidate) === result.writeId);
      if (write) {
        record(decision, {
          type: 'WriteRefused',
          attempt: inFlight.attempt,
          writeId: result.writeId,
          target: decision.state.origins[write.by]?.target ?? '',
          cause: result.cause.message,
          saveIds: write.saveIds ?? [],
        });
        for (const saveId of write.saveIds ?? []) {
          record(decision, {
            type: 'SaveResolved',
            saveId,
            outcome: 'Failed',
            reason: 'write-refused',
            writeId: result.writeId,
            cause: result.cause.message,
          });
        }
        return;
      }
      record(decision, {
        type: 'PublicationFailed',
        attempt: inFlight.attempt,
        cause: {
          kind: 'transient',
          message: `refusal of unknown write ${result.writeId}: ${result.cause.message}`,
        },
        ...nextRetry(decision),
      });
      return;
    }
    default: {
      const cause = { kind: FAILURE_KINDS[result.outcome], message: result.cause.message };
      record(decision, {
        type: 'PublicationFailed',
        attempt: inFlight.attempt,
        cause,
        ...nextRetry(decision, 'retryAfterMs' in result ? result.retryAfterMs : undefined),
      });
      const publication = decision.state.publication;
      if (cause.kind === 'parent-missing' && !publication.recovery && decision.state.pending.length > 0) {
        record(decision, { type: 'ParentRecoveryOpened', attempt: inFlight.attempt, cause: cause.message });
      }
    }
  }
}

/** Records a parent probe's answer; a missing parent waits for the next retry deadline. */
export function recordProbeResult(decision: Decision, command: CommandOf<'RecordProbeResult'>): void {
  const probe = decision.state.publication.probe;
  if (!probe || probe.probe !== command.probe) return;
  if (command.found) {
    record(decision, { type: 'ParentProbed', probe: probe.probe, found: true });
    return;
  }
  record(decision, {
    type: 'ParentProbed',
    probe: probe.probe,
    found: false,
    cause: command.cause?.message ?? 'parent branch not found on the remote',
    ...nextRetry(decision),
  });
}

/**
 * Plans the next publication when it is due: nothing in flight, work pending, and neither the
 * retry deadline nor the success cooldown ahead. While parent recovery waits for the parent, a due
 * retry deadline probes the parent instead.
 */
export function planPublication(decision: Decision): void {
  const state = decision.state;
  const publication = state.publication;
  if (publication.inFlight || publication.probe) return;
  if (state.pending.length === 0) {
    if (publication.retry) record(decision, { type: 'RetryCleared', reason: 'nothing-owed' });
    if (decision.state.publication.recovery)
      record(decision, { type: 'ParentRecoveryClosed', reason: 'nothing-owed' });
    return;
  }
  if (publicationHeldBy(state) !== undefined) return;
  let reason: 'work-pending' | 'cooldown-elapsed' | 'retry-due' | 'parent-returned' = 'work-pending';
  if (publication.retry) {
    if (decision.atMs < toMs(publication.retry.retryAt)) return;
    if (publication.recovery && !publication.recovery.parentSeen) {
      record(decision, {
        type: 'ParentProbePlanned',
        probe: `probe-${state.counters.probe + 1}`,
        parentBranch: state.parentBranch,
      });
      return;
    }
    reason = recorded(decision, 'ParentProbed') ? 'parent-returned' : 'retry-due';
  } else if (publication.lastPush) {
    if (decision.atMs < toMs(publication.lastPush.at) + state.limits.pushCooldownMs) return;
    if (decision.fired.includes('push-cooldown')) reason = 'cooldown-elapsed';
  }
  record(decision, {
    type: 'PublicationPlanned',
    attempt: `attempt-${state.counters.attempt + 1}`,
    writes: state.pending.map(storedWriteId),
    ...(publication.head !== undefined ? { base: publication.head } : {}),
    reason,
  });
}

/**
 * Pauses intake when a pending retry finds the budget overfilled, and resumes it as soon as no retry
 * is pending (a publication landed or nothing is owed). A healthy branch never pauses.
 */
export function updateIntake(decision: Decision): void {
  const publication = decision.state.publication;
  if (publication.intakePaused && !publication.retry) {
    const landed = recorded(decision, 'PublicationConfirmed');
    record(decision, { type: 'IntakeResumed', reason: landed ? 'publication-landed' : 'nothing-owed' });
    return;
  }
  const used = usedBudgetBytes(decision.state);
  const limit = decision.state.limits.bufferBytes;
  if (!publication.intakePaused && publication.retry && used > limit) {
    record(decision, { type: 'IntakePaused', usedBytes: used, limitBytes: limit });
  }
}

/**
 * A refresh says the remote changed, or that an operator mended what kept it failing (a revoked
 * token replaced): a pending retry is due now rather than at its backed-off time. The failure count
 * stays, so a remote still failing goes on backing off from where it was.
 */
export function bringRetryForward(decision: Decision): void {
  const retry = decision.state.publication.retry;
  if (!retry || toMs(retry.retryAt) <= decision.atMs) return;
  record(decision, { type: 'RetryBroughtForward', reason: 'refresh' });
}

/** Asks for an observation of the remote, unless one is already owed. */
export function requestObservation(decision: Decision): void {
  if (decision.state.publication.observation !== undefined) return;
  record(decision, {
    type: 'RemoteObservationRequested',
    observation: `observation-${decision.state.counters.observation + 1}`,
  });
}

/** Records an observation of the remote that was owed. */
export function recordObservation(decision: Decision, command: CommandOf<'RecordObservation'>): void {
  if (decision.state.publication.observation !== command.observation) return;
  record(decision, {
    type: 'RemoteObserved',
    observation: command.observation,
    ...(command.head !== undefined ? { head: command.head } : {}),
  });
}
