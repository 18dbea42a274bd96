import { SAVE_PHASES, type SaveCondition, type SavePhase, type SaveStatus } from './save-status';

/** Why a projection was not written: the object already shows a later point of the save's life. */
export type BackwardsReason = 'resolved-outcome-is-final' | 'earlier-phase' | 'older-condition';

export type ProjectionDecision =
  | { decision: 'Write' }
  | { decision: 'AlreadyProjected' }
  | { decision: 'Backwards'; reason: BackwardsReason };

const PHASE_RANK: Record<SavePhase, number> = Object.fromEntries(
  SAVE_PHASES.map((phase, rank) => [phase, rank]),
) as Record<SavePhase, number>;

/**
 * Decides whether writing `next` over the status the server shows (`live`) would move the save
 * backwards. Projections are at least once and may arrive out of order (a retried activity, a
 * slow earlier attempt), so the server's copy is the reference: a Resolved outcome is final, a
 * phase never goes back, and within one phase a condition never returns to an older transition.
 *
 * @param live the status on the server; `undefined` when it shows none (or one this version cannot read)
 * @param next the status to project
 * @example decideProjection({ live: resolved, next: waitingForPush }) // { decision: 'Backwards', reason: 'resolved-outcome-is-final' }
 */
export function decideProjection({
  live,
  next,
}: {
  live: SaveStatus | undefined;
  next: SaveStatus;
}): ProjectionDecision {
  if (live === undefined) return { decision: 'Write' };
  if (sameStatus(live, next)) return { decision: 'AlreadyProjected' };
  if (live.phase === 'Resolved') {
    // The same answer rendered again (say, with a later timestamp) is this outcome, already shown.
    const sameAnswer = next.outcome === live.outcome && next.commit === live.commit;
    return sameAnswer
      ? { decision: 'AlreadyProjected' }
      : { decision: 'Backwards', reason: 'resolved-outcome-is-final' };
  }
  if (PHASE_RANK[next.phase] < PHASE_RANK[live.phase])
    return { decision: 'Backwards', reason: 'earlier-phase' };
  // A later phase wins whatever its condition times say: refusing it could leave a save unresolved forever.
  if (next.phase === live.phase && hasOlderCondition(live.conditions, next.conditions)) {
    return { decision: 'Backwards', reason: 'older-condition' };
  }
  return { decision: 'Write' };
}

function hasOlderCondition(live: SaveCondition[], next: SaveCondition[]): boolean {
  return next.some((condition) => {
    const current = live.find((c) => c.type === condition.type);
    return (
      current !== undefined &&
      Date.parse(condition.lastTransitionTime) < Date.parse(current.lastTransitionTime)
    );
  });
}

function sameStatus(a: SaveStatus, b: SaveStatus): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(status: SaveStatus): unknown[] {
  const conditions = [...status.conditions]
    .sort((x, y) => x.type.localeCompare(y.type))
    .map((c) => [c.type, c.status, c.reason, c.message, Date.parse(c.lastTransitionTime)]);
  return [status.phase, status.outcome, status.commit, status.branch, status.message, conditions];
}
