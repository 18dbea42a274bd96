import type { SuspendedBy } from './facts';
import type { SaveOutcome, SavePhase, SaveRecord, SaveRequestRef } from './model';
import { findSave, publicSaveId, savedByAnotherTarget, tombstoneOf } from './saves';
import { type BranchState, publicationHeldBy, type RefusedWrite, usedBudgetBytes } from './state';
import { storedDecidedAt } from './storage';
import { toIso, toMs } from './time';
import { windowCloseDue } from './windows';

/** A kstatus condition as the API and the CommitRequest status show it. */
export interface Condition {
  type: 'Ready' | 'Reconciling' | 'Stalled' | 'Pushed';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** The publication status of a branch (the `publication` and `window` of a target's GET). */
export interface PublicationStatus {
  pendingWrites: number;
  pendingBytes: number;
  oldestPendingSince?: string;
  retryAt?: string;
  lastError?: string;
  parentMissing: boolean;
  intakePaused: boolean;
  lastPush?: { commit: string; at: string };
  publishing: boolean;
  /** What the admission check needs: the budget charge and its limit. */
  budget: { usedBytes: number; limitBytes: number; itemOverheadBytes: number };
  window: { open: boolean; target?: string; author?: string; changes: number; closesAt?: string };
  conditions: Condition[];
}

function failingMessage(state: BranchState, atMs: number): string | undefined {
  const retry = state.publication.retry;
  if (!retry) return undefined;
  const waitS = Math.max(0, Math.ceil((toMs(retry.retryAt) - atMs) / 1000));
  const paused = state.publication.intakePaused ? '; intake paused' : '';
  return `publication failing since ${retry.since}: ${retry.cause.message}; next attempt at ${retry.retryAt} (in ${waitS}s)${paused}`;
}

/**
 * What a refusal of the credentials asks of an operator: retrying on the schedule will not mend a
 * revoked or expired token, so it is said in the status rather than left to look temporary.
 */
export const CREDENTIALS_REFUSED_ADVICE =
  'the remote refused the credentials: replace the token (its variable, or the file auth.tokenFile names, which is read again at each attempt), then POST /api/v1/targets/{target}/refresh to retry at once';

function credentialsRefusedConditions(message: string, since: string): Condition[] {
  return [
    { type: 'Ready', status: 'False', reason: 'CredentialsRefused', message, lastTransitionTime: since },
    {
      type: 'Reconciling',
      status: 'False',
      reason: 'CredentialsRefused',
      message: '',
      lastTransitionTime: since,
    },
    { type: 'Stalled', status: 'True', reason: 'CredentialsRefused', message, lastTransitionTime: since },
  ];
}

/**
 * A proposing branch whose pull-request host refused the token: the repository's credentials are
 * refused as for a push (its pushes may still land: a token can be allowed to push and not to open
 * pull requests), Stalled until a call succeeds with a replaced one.
 */
function proposalCredentialsRefused(state: BranchState): { message: string; since: string } | undefined {
  const proposal = state.proposal;
  const refused = proposal?.lastError;
  if (refused?.kind !== 'credentials-refused') return undefined;
  const next = proposal?.nextAt ? `; the next call at ${proposal.nextAt} uses the token as it is then` : '';
  return {
    message: `the pull-request host refused the repository's credentials since ${refused.at}: ${refused.message}${next}. Replace the token (its variable, or the file auth.tokenFile names) or allow it to open pull requests (docs/pull-requests.md), then POST /api/v1/targets/{target}/refresh to retry at once`,
    since: refused.at,
  };
}

/**
 * The conditions of a failing branch: a refused credential is `Stalled` (kstatus: it will not
 * progress without someone acting), any other failure is `Reconciling` while it retries.
 */
function failingConditions(
  state: BranchState,
  failing: string,
  parentMissing: boolean,
  since: string,
): Condition[] {
  if (state.publication.retry?.cause.kind === 'credentials-refused')
    return credentialsRefusedConditions(`${failing}. ${CREDENTIALS_REFUSED_ADVICE}`, since);
  const reason = parentMissing ? 'ParentBranchNotFound' : 'Progressing';
  return [
    { type: 'Ready', status: 'False', reason, message: failing, lastTransitionTime: since },
    {
      type: 'Reconciling',
      status: 'True',
      reason: 'Progressing',
      message: failing,
      lastTransitionTime: since,
    },
    { type: 'Stalled', status: 'False', reason: 'Progressing', message: failing, lastTransitionTime: since },
  ];
}

/** The branch's publication status at `at`, for the target GET, the driver's custom status and admission. */
export function publicationStatus(state: BranchState, at: string): PublicationStatus {
  const atMs = toMs(at);
  const publication = state.publication;
  const first = state.pending[0];
  const oldest = first ? storedDecidedAt(first) : undefined;
  const window = state.window;
  const failing = failingMessage(state, atMs);
  const parentMissing = publication.recovery !== undefined && !publication.recovery.parentSeen;
  const since = publication.retry?.since ?? publication.lastPush?.at ?? at;
  const hostRefused = proposalCredentialsRefused(state);
  const conditions: Condition[] = failing
    ? failingConditions(state, failing, parentMissing, since)
    : hostRefused
      ? credentialsRefusedConditions(hostRefused.message, hostRefused.since)
      : [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Current',
            message: 'publication is healthy',
            lastTransitionTime: since,
          },
          { type: 'Reconciling', status: 'False', reason: 'Current', message: '', lastTransitionTime: since },
          { type: 'Stalled', status: 'False', reason: 'Current', message: '', lastTransitionTime: since },
        ];
  const status: PublicationStatus = {
    pendingWrites: state.pending.length,
    pendingBytes: state.pendingBytes,
    parentMissing,
    intakePaused: publication.intakePaused,
    publishing: publication.inFlight !== undefined,
    budget: {
      usedBytes: usedBudgetBytes(state),
      limitBytes: state.limits.bufferBytes,
      itemOverheadBytes: state.limits.itemOverheadBytes,
    },
    window: window
      ? {
          open: true,
          target: window.target,
          author: window.author.username ?? window.author.name,
          changes: window.paths,
          closesAt: toIso(windowCloseDue(window).dueMs),
        }
      : { open: false, changes: 0 },
    conditions,
  };
  if (oldest !== undefined) status.oldestPendingSince = oldest;
  if (publication.retry) status.retryAt = publication.retry.retryAt;
  if (publication.lastError) status.lastError = publication.lastError.cause.message;
  if (publication.lastPush) status.lastPush = publication.lastPush;
  return status;
}

/** The writes of `target` set aside because they can never be published: how many, and the latest. */
export interface RefusedWritesView {
  count: number;
  recent: RefusedWrite[];
  /** `WritesRefused` True once any write of the target was refused (it names the latest), else absent. */
  condition?: Omit<Condition, 'type'> & { type: 'WritesRefused' };
}

/** The writes of `target` the branch refused, for the target's GET. */
export function refusedWrites(state: BranchState, target: string): RefusedWritesView {
  const count = state.refused?.counts[target] ?? 0;
  const recent = (state.refused?.recent ?? []).filter((refused) => refused.target === target);
  const latest = recent.at(-1);
  if (count === 0 || !latest) return { count, recent };
  return {
    count,
    recent,
    condition: {
      type: 'WritesRefused',
      status: 'True',
      reason: 'WriteRefused',
      message:
        latest.writeId === undefined
          ? `${count} write(s) were refused or set aside; the latest, a change of ${latest.object ?? 'an object'}, was not recorded: ${latest.cause}`
          : `${count} write(s) were refused or set aside; the latest, ${latest.writeId}, could never be published: ${latest.cause}`,
      lastTransitionTime: latest.at,
    },
  };
}

/** A save as `GET …/saves/{id}` shows it (the app adds the branch name). */
export interface SaveView {
  id: string;
  target?: string;
  phase: SavePhase;
  outcome?: SaveOutcome;
  commit?: string;
  /** publish: propose: the pull request that shows (or showed) the save's commit. */
  pullRequest?: { number: number; url: string };
  /**
   * publish: propose: the base branch, where the pull request's merge commit (`commit`) lands; the
   * branch the state is kept for is the proposed one, which the app names otherwise.
   */
  branch?: string;
  message?: string;
  request?: SaveRequestRef;
  conditions: Condition[];
}

function condition(
  type: Condition['type'],
  status: Condition['status'],
  reason: string,
  message: string,
  at: string,
): Condition {
  return { type, status, reason, message, lastTransitionTime: at };
}

/** Why a save committed nothing, and what to send instead. */
const NOTHING_COMMITTED: Record<'AlreadyPresent' | 'NoWindow' | 'WindowMismatch', string> = {
  AlreadyPresent:
    'nothing was committed: the changes were already in Git. To record the message anyway, send the save with whenNothingToCommit: CommitEmpty',
  NoWindow:
    "nothing was committed: no change of the save's author arrived within its attach timeout. Send the save with the author who makes the changes, a longer window.attachTimeout, or whenNothingToCommit: CommitEmpty",
  WindowMismatch:
    "nothing was committed: the open window on the target held another author's changes. Send the save with that author (author.username), or without an author to take the open window's",
};

function saveConditions(state: BranchState, save: SaveRecord, atMs: number): Condition[] {
  if (save.phase !== 'Resolved' || !save.outcome) {
    const since = save.registeredAt;
    const held =
      save.phase === 'WaitingForPush'
        ? (failingMessage(state, atMs) ??
          (save.proposedCommit ? 'waiting for its pull request to be opened' : 'waiting for publication'))
        : save.phase === 'Proposed'
          ? `proposed in pull request #${save.pullRequest?.number ?? '?'} (${save.pullRequest?.url ?? ''}), waiting for it to be merged`
          : save.phase;
    return [
      condition('Ready', 'False', save.phase, held, since),
      condition('Reconciling', 'True', save.phase, held, since),
      condition('Stalled', 'False', save.phase, held, since),
      condition('Pushed', 'Unknown', save.phase, 'the commit has not been pushed yet', since),
    ];
  }
  const at = save.resolvedAt ?? save.registeredAt;
  const outcome = save.outcome;
  switch (outcome) {
    case 'Committed':
      return [
        condition(
          'Ready',
          'True',
          'Committed',
          save.pullRequest && save.commit
            ? `committed ${save.commit} on ${state.parentBranch ?? 'the base branch'}: pull request #${save.pullRequest.number} (${save.pullRequest.url}) was merged`
            : `committed ${save.commit ?? ''}`.trim(),
          at,
        ),
        condition('Reconciling', 'False', 'Committed', '', at),
        condition('Stalled', 'False', 'Committed', '', at),
        condition('Pushed', 'True', 'Pushed', `pushed ${save.commit ?? ''}`.trim(), at),
      ];
    case 'AlreadyPresent':
    case 'NoWindow':
    case 'WindowMismatch': {
      // Nothing was committed, so the request is not done: the message says what would make it so.
      const explanation = NOTHING_COMMITTED[outcome];
      return [
        condition('Ready', 'False', outcome, explanation, at),
        condition('Reconciling', 'False', outcome, '', at),
        condition('Stalled', 'True', outcome, explanation, at),
        condition('Pushed', 'False', outcome, explanation, at),
      ];
    }
    default: {
      const message =
        outcome === 'Withdrawn'
          ? 'the save was withdrawn before it attached'
          : (save.cause ??
            (outcome === 'PullRequestClosed'
              ? 'its pull request was closed without merging'
              : 'the save failed'));
      return [
        condition('Ready', 'False', outcome, message, at),
        condition('Reconciling', 'False', outcome, '', at),
        condition('Stalled', 'True', outcome, message, at),
        condition('Pushed', 'False', outcome, message, at),
      ];
    }
  }
}

/**
 * A save's status at `at`, or undefined when the branch does not know the id. With `target`, `saveId`
 * is the id the client knows, of that target's save only; without, the key the branch keeps it under.
 */
export function saveStatus(
  state: BranchState,
  saveId: string,
  at: string,
  target?: string,
): SaveView | undefined {
  const save = target === undefined ? state.saves[saveId] : findSave(state, target, saveId);
  if (!save) {
    const withdrawnAt = target === undefined ? state.tombstones[saveId] : tombstoneOf(state, target, saveId);
    if (withdrawnAt === undefined) return undefined;
    const message = 'the save was withdrawn before it was registered';
    return {
      id: publicSaveId(saveId),
      phase: 'Resolved',
      outcome: 'Withdrawn',
      conditions: [
        condition('Ready', 'False', 'Withdrawn', message, withdrawnAt),
        condition('Reconciling', 'False', 'Withdrawn', '', withdrawnAt),
        condition('Stalled', 'True', 'Withdrawn', message, withdrawnAt),
        condition('Pushed', 'False', 'Withdrawn', message, withdrawnAt),
      ],
    };
  }
  const view: SaveView = {
    id: publicSaveId(save.id),
    target: save.target,
    phase: save.phase,
    conditions: saveConditions(state, save, toMs(at)),
  };
  if (save.outcome) view.outcome = save.outcome;
  if (save.commit) view.commit = save.commit;
  if (save.pullRequest) view.pullRequest = save.pullRequest;
  if (state.proposal && state.parentBranch !== null) view.branch = state.parentBranch;
  if (save.message) view.message = save.message;
  if (save.request) view.request = save.request;
  return view;
}

/**
 * What a withdrawal answers: `Withdrawn` when the save only waited (or is unknown), `held` while its
 * work is owed, `notFound` when the id is another target's save.
 */
export type WithdrawAnswer = { outcome: SaveOutcome } | { held: SavePhase } | { notFound: true };

/** The answer of withdrawing `saveId` (of `target`, when named) from this state, after the withdrawal was decided. */
export function withdrawAnswer(state: BranchState, saveId: string, target?: string): WithdrawAnswer {
  const save = target === undefined ? state.saves[saveId] : findSave(state, target, saveId);
  if (!save && target !== undefined && tombstoneOf(state, target, saveId) === undefined)
    return savedByAnotherTarget(state, target, saveId) ? { notFound: true } : { outcome: 'Withdrawn' };
  if (!save || save.phase === 'WaitingForWindow') return { outcome: 'Withdrawn' };
  if (save.phase === 'Resolved') return { outcome: save.outcome ?? 'Withdrawn' };
  return { held: save.phase };
}

/** The admission decision of the HTTP layer, over the publication status it caches. */
export type AdmissionDecision =
  | { admit: true }
  | { admit: false; retryAfterSeconds: number; reason: 'intake-paused' | 'budget-full' };

/**
 * Decides whether `bytes` of payload in `items` items may be admitted: refused while intake is
 * paused, or while a retry is pending and they do not fit the budget; a healthy branch admits all.
 * @example admissionCheck(status, { bytes: 2048, items: 1 }, now) // → { admit: true }
 */
export function admissionCheck(
  status: PublicationStatus,
  request: { bytes: number; items: number },
  at: string,
): AdmissionDecision {
  const retryAfterSeconds =
    status.retryAt === undefined ? 1 : Math.max(1, Math.ceil((toMs(status.retryAt) - toMs(at)) / 1000));
  if (status.intakePaused) return { admit: false, retryAfterSeconds, reason: 'intake-paused' };
  if (status.retryAt !== undefined) {
    const charge = request.bytes + request.items * status.budget.itemOverheadBytes;
    if (status.budget.usedBytes + charge > status.budget.limitBytes) {
      return { admit: false, retryAfterSeconds, reason: 'budget-full' };
    }
  }
  return { admit: true };
}

/** A target's suspension as its status shows it, and the target (maybe another) holding the branch. */
export interface SuspensionView {
  suspended: boolean;
  by: SuspendedBy[];
  since: string | null;
  /** The suspended target whose pending write holds the branch's publication now, if any. */
  publicationHeldBy: string | null;
  /** `Suspended` True while the target is suspended, else absent. */
  condition?: Omit<Condition, 'type'> & { type: 'Suspended' };
}

/** Whether `target` is suspended, by whom, and whether publication of its branch is held. */
export function suspensionOf(state: BranchState, target: string): SuspensionView {
  const suspension = state.suspended[target];
  const heldBy = publicationHeldBy(state) ?? null;
  if (!suspension) return { suspended: false, by: [], since: null, publicationHeldBy: heldBy };
  const by = (['configuration', 'operator'] as const).filter((who) => suspension[who]);
  return {
    suspended: true,
    by,
    since: suspension.since,
    publicationHeldBy: heldBy,
    condition: {
      type: 'Suspended',
      status: 'True',
      reason: suspension.operator ? 'SuspendedByOperator' : 'SuspendedByConfiguration',
      message: `suspended by ${by.join(' and ')}: accepted changes are kept and not published until it resumes`,
      lastTransitionTime: suspension.since,
    },
  };
}
