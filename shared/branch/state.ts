import type { AdmittedChange } from './commands';
import type {
  Author,
  Deadline,
  DeadlinePurpose,
  FailureCause,
  OpenWindow,
  SaveRecord,
  StoredWrite,
  WriteOrigin,
} from './model';
import type { NotRecordedTally } from './not-recorded';
import type { ProposalState } from './proposal';
import type { MinuteCounts, RecentCommit } from './record-activity';
import { type BranchLimits, DEFAULT_LIMITS, type TargetSettings } from './settings';

/** Where publication stands: the attempt or probe in flight, the retry schedule, parent recovery, intake. */
export interface PublicationState {
  /** The remote head last confirmed or observed: the base of the next attempt. */
  head?: string;
  /**
   * The attempt in flight carries the first `writes` pending writes: an attempt takes every write
   * pending when it is planned, later writes are appended after them, and none of them is removed
   * before the attempt's result.
   */
  inFlight?: { attempt: string; writes: number; plannedAt: string };
  probe?: { probe: string; plannedAt: string };
  /** Consecutive failures since the last success; drives the backoff. */
  failures: number;
  /** Present while a retry is pending: nothing publishes before `retryAt`. */
  retry?: { retryAt: string; delayMs: number; since: string; cause: FailureCause };
  lastError?: { cause: FailureCause; at: string };
  lastPush?: { commit: string; at: string };
  /** Open while publication failed for a missing parent with work pending. */
  recovery?: { openedAt: string; parentSeen: boolean };
  intakePaused: boolean;
  /** An observation of the remote owed (a refresh was requested). */
  observation?: string;
}

/**
 * A write set aside because it can never be published (`writeId`), or a change refused on arrival
 * because the branch cannot hold it (`object`, since version 4), as the target's status shows it.
 */
export interface RefusedWrite {
  writeId?: string;
  /** The object a change refused on arrival was about, e.g. `apps/v1 deployments prod/web`. */
  object?: string;
  target: string;
  cause: string;
  at: string;
}

/** How many writes were refused per target, and the latest few (`REFUSALS_KEPT`). */
export interface Refusals {
  counts: Record<string, number>;
  recent: RefusedWrite[];
}

export const REFUSALS_KEPT = 20;

/** The refusals with `refused` added: counted per target, the latest `REFUSALS_KEPT` kept. */
export function withRefusals(known: Refusals | undefined, target: string, refused: RefusedWrite[]): Refusals {
  const base = known ?? { counts: {}, recent: [] };
  return {
    counts: { ...base.counts, [target]: (base.counts[target] ?? 0) + refused.length },
    recent: [...base.recent, ...refused].slice(-REFUSALS_KEPT),
  };
}

/**
 * Why a target is suspended: its configuration says `suspend: true`, an operator suspended it
 * (`POST …/suspend`), or both; it resumes when neither holds. `since` is when the first began.
 */
export interface Suspension {
  configuration: boolean;
  operator: boolean;
  since: string;
}

/** A change with no author (the forwarder's) held for an audit record of its object to claim it. */
export interface HeldChange {
  target: string;
  /** The configured committer the change is published under if no audit record claims it. */
  author: Author;
  /** Receipt time (epoch ms): released to its window once the target's attribution wait has passed. */
  atMs: number;
  /** As admitted, with its object's uid (and resourceVersion, for an upsert). */
  change: AdmittedChange;
}

/**
 * What an object's newest recorded change was: `[receipt time (epoch ms), resourceVersion or null,
 * 1 when it was a delete]`.
 */
export type RecordedObject = [atMs: number, resourceVersion: string | null, deleted: 0 | 1];

/** How a target fed by the forwarder and an Event Hubs feed matches the two (`attribution.ts`). */
export interface AttributionState {
  /** Held changes, oldest first. */
  held: HeldChange[];
  /** By `<target>/<uid>`: the newest change admitted of each object recently, least recent first. */
  recorded: Record<string, RecordedObject>;
}

/** Counters that make every identifier deterministic. */
export interface BranchCounters {
  window: number;
  write: number;
  save: number;
  attempt: number;
  probe: number;
  observation: number;
  generation: number;
}

/** Everything one repository branch knows; plain JSON, the fold of its facts. */
export interface BranchState {
  /**
   * 2: pending writes stored compactly (`StoredWrite` referencing `origins`); 3: `suspended` kept;
   * 4: snapshots sent in parts kept per target (the entity's `snapshots` keys and `snapshot:` payload
   * references name the target), and changes refused on arrival counted in `refused` (`object`), and scoped operations
   * (`delete-collection`, `delete-namespace`, `set-replicas`) in writes, and what changed: the
   * branch's `recentCommits` and each target's changes per minute (`activity`), the combined
   * feeds' held changes and recorded objects (`attribution`), and a proposing branch's pull request
   * (`proposal`) and its saves' `Proposed` phase, and runs of changes kept beside the state
   * (`OpenWindow.runs`, `StoredWrite.runs`).
   */
  version: 4;
  limits: BranchLimits;
  parentBranch: string | null;
  targets: Record<string, TargetSettings>;
  counters: BranchCounters;
  window: OpenWindow | null;
  /** Decided writes in publication order, stored compactly: `pendingWrites(state)` expands them. */
  pending: StoredWrite[];
  /** Author, attribution and target settings of the pending writes, referenced by index (freed slots are null). */
  origins: (WriteOrigin | null)[];
  pendingBytes: number;
  pendingItems: number;
  saves: Record<string, SaveRecord>;
  /** Ids withdrawn before they were registered, with the time: a late registration is refused. */
  tombstones: Record<string, string>;
  /** Saves not yet resolved (each charged one item to the budget). */
  openSaves: number;
  publication: PublicationState;
  deadlines: Record<string, Deadline>;
  /** Writes refused so far; absent until the first (and in states stored before refusals were kept). */
  refused?: Refusals;
  /**
   * Per target, what was not recorded (ignored, excluded, refused), by reason with a few examples;
   * absent until the first (version 4 on).
   */
  notRecorded?: Record<string, NotRecordedTally>;
  /** The suspended targets: while any of them has a write pending, the branch publishes nothing. */
  suspended: Record<string, Suspension>;
  /** The branch's latest commits, oldest first (`RECENT_COMMITS_KEPT`); absent until the first. */
  recentCommits?: RecentCommit[];
  /** Per target, changes accepted and published per minute over the last hour; absent until the first. */
  activity?: Record<string, MinuteCounts>;
  /** Changes held for their audit record, and the objects recorded recently; absent until the first. */
  attribution?: AttributionState;
  /** The pull request the branch's commits are proposed in (`publish: propose`); absent on a branch that pushes. */
  proposal?: ProposalState;
}

/** Where `BranchState.deadlines` keeps the deadline of `purpose` for `owner`: one per pair. */
export function deadlineKey(purpose: DeadlinePurpose, owner: string): string {
  return `${purpose}:${owner}`;
}

/** The state of a branch that has decided nothing yet. */
export function initialState(): BranchState {
  return {
    version: 4,
    limits: DEFAULT_LIMITS,
    parentBranch: null,
    targets: {},
    counters: { window: 0, write: 0, save: 0, attempt: 0, probe: 0, observation: 0, generation: 0 },
    window: null,
    pending: [],
    origins: [],
    pendingBytes: 0,
    pendingItems: 0,
    saves: {},
    tombstones: {},
    openSaves: 0,
    publication: { failures: 0, intakePaused: false },
    deadlines: {},
    suspended: {},
  };
}

/**
 * The suspended target that holds the branch's publication, if any: writes publish in order, one
 * attempt taking all that are pending, so one suspended target's pending write holds the branch.
 */
export function publicationHeldBy(state: BranchState): string | undefined {
  if (Object.keys(state.suspended).length === 0) return undefined;
  for (const write of state.pending) {
    const target = state.origins[write.by]?.target;
    if (target !== undefined && state.suspended[target]) return target;
  }
  return undefined;
}

/** Bytes charged to the intake budget: payloads plus a per-item overhead for everything accepted and unpublished. */
export function usedBudgetBytes(state: BranchState): number {
  const overhead = state.limits.itemOverheadBytes;
  const window = state.window ? state.window.bytes + state.window.paths * overhead : 0;
  let held = 0;
  for (const { change } of state.attribution?.held ?? []) held += change.bytes + overhead;
  return window + held + state.pendingBytes + state.pendingItems * overhead + state.openSaves * overhead;
}
