import type { DeadlinePurpose, PendingWrite } from './model';
import { pullRequestText } from './proposal';
import type { BranchState } from './state';
import { type SaveView, saveStatus } from './status';
import { inFlightWrites } from './storage';
import { toMs } from './time';

/** Work the branch owes the outside world; the driver runs each and reports its result as a command. */
export type BranchEffect =
  | {
      type: 'publish';
      attempt: string;
      base?: string;
      parentBranch: string | null;
      /** The branch starts again from `parentBranch`'s head: its last pull request ended (publish: propose). */
      restart?: true;
      writes: PendingWrite[];
    }
  | { type: 'probe-parent'; probe: string; parentBranch: string | null }
  | { type: 'observe-remote'; observation: string }
  | { type: 'project'; saveId: string; request: NonNullable<SaveView['request']>; status: SaveView }
  | {
      type: 'pull-request';
      request: string;
      /** `sync`: open the pull request, or update the one open; `read`: see whether it was merged or closed. */
      action: 'sync' | 'read';
      base: string;
      /** The pull request the branch knows open. */
      pullRequest?: number;
      text: { title: string; description: string };
    };

type PublishEffect = Extract<BranchEffect, { type: 'publish' }>;

/** A publication as the driver sees it: the attempt and how many writes it carries, not the writes. */
export interface PublicationSummary {
  type: 'publish';
  attempt: string;
  writes: number;
}

/** An effect as the driver plans it: the publication in summary, every other effect whole. */
export type PlannedEffect = Exclude<BranchEffect, { type: 'publish' }> | PublicationSummary;

/**
 * The effects still owed by the state: the publication attempt or parent probe in flight, an
 * observation of the remote, and the outcomes of resolved saves not yet projected to their
 * CommitRequest. Deriving them from state makes them at least once: after a crash they are owed again.
 */
export function owedEffects(state: BranchState): BranchEffect[] {
  const attempt = state.publication.inFlight?.attempt;
  const publish = attempt === undefined ? undefined : publicationFor(state, attempt);
  return [...(publish ? [publish] : []), ...otherEffects(state)];
}

/**
 * The owed effects as the driver plans them: the publication counted, not expanded, since the
 * driver passes on only its attempt (the publish activity reads the writes with `publicationFor`).
 */
export function plannedEffects(state: BranchState): PlannedEffect[] {
  const inFlight = state.publication.inFlight;
  const publish: PublicationSummary[] = inFlight
    ? [{ type: 'publish', attempt: inFlight.attempt, writes: inFlight.writes }]
    : [];
  return [...publish, ...otherEffects(state)];
}

/** The publication of `attempt` with its writes, or undefined when that attempt is no longer in flight. */
export function publicationFor(state: BranchState, attempt: string): PublishEffect | undefined {
  const publication = state.publication;
  if (publication.inFlight?.attempt !== attempt) return undefined;
  return {
    type: 'publish',
    attempt,
    ...(publication.head !== undefined ? { base: publication.head } : {}),
    parentBranch: state.parentBranch,
    ...(state.proposal?.restart ? { restart: true as const } : {}),
    writes: inFlightWrites(state),
  };
}

function otherEffects(state: BranchState): Exclude<BranchEffect, { type: 'publish' }>[] {
  const effects: Exclude<BranchEffect, { type: 'publish' }>[] = [];
  const publication = state.publication;
  if (publication.probe) {
    effects.push({ type: 'probe-parent', probe: publication.probe.probe, parentBranch: state.parentBranch });
  }
  if (publication.observation !== undefined) {
    effects.push({ type: 'observe-remote', observation: publication.observation });
  }
  const request = state.proposal?.request;
  if (request && state.parentBranch !== null) {
    const known = state.proposal?.pullRequest?.number;
    effects.push({
      type: 'pull-request',
      request: request.id,
      action: request.action,
      base: state.parentBranch,
      ...(known !== undefined ? { pullRequest: known } : {}),
      text: pullRequestText(state),
    });
  }
  for (const save of Object.values(state.saves)) {
    if (save.phase !== 'Resolved' || !save.request || save.projectedAt !== undefined) continue;
    const status = saveStatus(state, save.id, save.resolvedAt ?? save.registeredAt);
    if (status) effects.push({ type: 'project', saveId: save.id, request: save.request, status });
  }
  return effects;
}

/** The earliest recorded deadline, so the driver can sleep until it and then send `Tick`. */
export function nextDeadline(
  state: BranchState,
): { dueAt: string; purpose: DeadlinePurpose; owner: string; generation: number } | undefined {
  let earliest: { dueAt: string; purpose: DeadlinePurpose; owner: string; generation: number } | undefined;
  for (const deadline of Object.values(state.deadlines)) {
    if (!earliest || toMs(deadline.dueAt) < toMs(earliest.dueAt)) {
      earliest = {
        dueAt: deadline.dueAt,
        purpose: deadline.purpose,
        owner: deadline.owner,
        generation: deadline.generation,
      };
    }
  }
  return earliest;
}
