import { evolveAttribution } from './attribution';
import type { BranchFact, FactOf } from './facts';
import type { Deadline, SaveRecord } from './model';
import { withNotRecorded } from './not-recorded';
import { initialProposal, type ProposalState, withProposedObjects } from './proposal';
import { changesOf, countInMinute, RECENT_COMMITS_KEPT, recentCommit } from './record-activity';
import { type BranchState, deadlineKey, type PublicationState, withRefusals } from './state';
import {
  admitRunToWindow,
  admitToWindow,
  appendWrite,
  emptyBuckets,
  inFlightWriteIds,
  inFlightWrites,
  removeWrites,
  tightenPrune,
} from './storage';

function omit<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}

function updateSave(
  state: BranchState,
  saveId: string,
  change: (save: SaveRecord) => SaveRecord,
): BranchState {
  const save = state.saves[saveId];
  if (!save) return state;
  return { ...state, saves: { ...state.saves, [saveId]: change(save) } };
}

function withPublication(state: BranchState, publication: PublicationState): BranchState {
  return { ...state, publication };
}

/** `state` with `count` changes of `target` counted as `series` in the minute of `at`. */
function counted(
  state: BranchState,
  target: string,
  series: 'accepted' | 'published',
  at: string,
  count: number,
): BranchState {
  if (count <= 0) return state;
  const activity = {
    ...state.activity,
    [target]: countInMinute(state.activity?.[target], series, Date.parse(at), count),
  };
  return { ...state, activity };
}

/** `state` with the commits of a confirmed publication kept for the targets' "what changed" view. */
function withPublished(
  state: BranchState,
  fact: FactOf<'PublicationConfirmed'>,
  published: Set<string>,
): BranchState {
  let next = state;
  const commits = [...(state.recentCommits ?? [])];
  let proposal = state.proposal;
  for (const write of inFlightWrites(state)) {
    const commit = fact.commits[write.id];
    if (!published.has(write.id) || !commit) continue;
    const written = fact.written?.[write.id];
    commits.push(recentCommit(write, commit, fact.at, written));
    next = counted(next, write.target, 'published', fact.at, written?.count ?? changesOf(write));
    if (proposal) proposal = withProposedObjects(proposal, write, written);
  }
  if (proposal && state.proposal) {
    // a push the pull request does not show yet: the host is told of it (and the restart is done)
    const pushed = fact.head !== state.publication.head;
    proposal = { ...proposal, restart: false, ...(pushed ? { synced: false } : {}) };
    if (pushed) proposal = omit(proposal, 'nextAt');
  }
  return {
    ...next,
    recentCommits: commits.slice(-RECENT_COMMITS_KEPT),
    ...(proposal ? { proposal } : {}),
  };
}

/**
 * Folds one fact into the state. Total and pure: a fact that no longer applies (a stale attempt, an
 * unknown save) leaves the state as it is; it never throws and never mutates its input.
 */
/** The state's `notRecorded` with what `target` did not record added (the latest examples kept). */
function tallied(
  state: BranchState,
  target: string,
  added: Parameters<typeof withNotRecorded>[1],
): Pick<BranchState, 'notRecorded'> {
  return {
    notRecorded: { ...state.notRecorded, [target]: withNotRecorded(state.notRecorded?.[target], added) },
  };
}

export function evolve(state: BranchState, fact: BranchFact): BranchState {
  const pub = state.publication;
  switch (fact.type) {
    case 'TargetConfigured':
      return { ...state, targets: { ...state.targets, [fact.target]: fact.settings } };
    case 'BranchLimitsChanged':
      return { ...state, limits: fact.limits };
    case 'TargetSuspended': {
      const current = state.suspended[fact.target];
      const suspension = {
        configuration: current?.configuration ?? false,
        operator: current?.operator ?? false,
        since: current?.since ?? fact.at,
        [fact.by]: true,
      };
      return { ...state, suspended: { ...state.suspended, [fact.target]: suspension } };
    }
    case 'TargetResumed': {
      const current = state.suspended[fact.target];
      if (!current) return state;
      const suspension = { ...current, [fact.by]: false };
      if (suspension.configuration || suspension.operator)
        return { ...state, suspended: { ...state.suspended, [fact.target]: suspension } };
      return { ...state, suspended: omit(state.suspended, fact.target) };
    }
    case 'ParentBranchChanged': {
      const next = { ...state, parentBranch: fact.parentBranch };
      if (fact.probeDueAt === undefined || !pub.retry) return next;
      const publication: PublicationState = {
        ...pub,
        failures: 0,
        retry: { ...pub.retry, retryAt: fact.probeDueAt, delayMs: 0 },
      };
      if (pub.recovery) publication.recovery = { ...pub.recovery, parentSeen: false };
      return withPublication(next, publication);
    }
    case 'PruneTightened':
      return tightenPrune(state, fact.writeIds, fact.prune);
    case 'WindowOpened':
      return {
        ...state,
        counters: { ...state.counters, window: state.counters.window + 1 },
        window: {
          id: fact.windowId,
          target: fact.target,
          author: fact.author,
          attribution: fact.attribution,
          openedAt: fact.at,
          idleTimeoutMs: fact.idleTimeoutMs,
          idleFrom: fact.at,
          maxDueAt: fact.maxDueAt,
          buckets: emptyBuckets(),
          paths: 0,
          bytes: 0,
          nextSeq: 0,
          soleMessage: null,
        },
      };
    case 'ChangesAdmitted': {
      const window = state.window;
      if (!window || window.id !== fact.windowId) return state;
      const soleMessage = fact.soleMessage ?? null;
      const admitted = counted(state, window.target, 'accepted', fact.at, fact.changes.length);
      return {
        ...admitted,
        window: {
          ...window,
          ...admitToWindow(window, fact.changes, Date.parse(fact.at) - Date.parse(window.openedAt)),
          idleFrom: fact.at,
          soleMessage,
        },
      };
    }
    case 'RunAdmitted': {
      const window = state.window;
      if (!window || window.id !== fact.windowId) return state;
      const admitted = counted(state, window.target, 'accepted', fact.at, fact.run.n);
      return {
        ...admitted,
        window: { ...window, ...admitRunToWindow(window, fact.run), idleFrom: fact.at, soleMessage: null },
      };
    }
    case 'ChangeSkipped':
    case 'ChangeAlreadyRecorded':
    case 'WithdrawIgnored':
      return state;
    case 'ChangeHeld':
    case 'HeldChangeClaimed':
    case 'HeldChangesReleased':
    case 'HeldChangesDiscarded':
    case 'ObjectsRecorded':
      return { ...state, attribution: evolveAttribution(state.attribution, fact) };
    case 'WindowClosed':
      return state.window?.id === fact.windowId ? { ...state, window: null } : state;
    case 'WriteDecided': {
      const write = fact.write;
      // a window's changes were counted as admitted; a snapshot's objects are counted as it is decided
      const accepted =
        write.kind === 'snapshot'
          ? counted(state, write.target, 'accepted', fact.at, changesOf(write))
          : state;
      let next: BranchState = {
        ...appendWrite(accepted, write, fact.order),
        counters: { ...state.counters, write: state.counters.write + 1 },
      };
      for (const saveId of write.saveIds) {
        next = updateSave(next, saveId, (save) => ({ ...save, phase: 'WaitingForPush', writeId: write.id }));
      }
      return next;
    }
    case 'SnapshotSuperseded':
      return removeWrites(state, new Set([fact.writeId]));
    case 'SaveRegistered':
      return {
        ...state,
        counters: { ...state.counters, save: state.counters.save + 1 },
        saves: { ...state.saves, [fact.save.id]: fact.save },
        openSaves: state.openSaves + 1,
      };
    case 'SaveSawForeignWindow':
      return updateSave(state, fact.saveId, (save) => ({ ...save, sawForeignWindow: true }));
    case 'SaveAttached': {
      const window = state.window;
      if (!window || window.id !== fact.windowId) return state;
      const attached = updateSave(state, fact.saveId, (save) => ({
        ...save,
        phase: 'CollectingWindow',
        windowId: fact.windowId,
      }));
      return {
        ...attached,
        window: {
          ...window,
          saveId: fact.saveId,
          idleTimeoutMs: fact.idleTimeoutMs,
          idleFrom: fact.at,
          maxDueAt: fact.maxDueAt,
        },
      };
    }
    case 'SaveResolved': {
      const save = state.saves[fact.saveId];
      if (!save) {
        return fact.outcome === 'Withdrawn'
          ? { ...state, tombstones: { ...state.tombstones, [fact.saveId]: fact.at } }
          : state;
      }
      if (save.phase === 'Resolved') return state;
      const resolved: SaveRecord = { ...save, phase: 'Resolved', outcome: fact.outcome, resolvedAt: fact.at };
      if (fact.commit !== undefined) resolved.commit = fact.commit;
      if (fact.cause !== undefined) resolved.cause = fact.cause;
      return { ...state, saves: { ...state.saves, [save.id]: resolved }, openSaves: state.openSaves - 1 };
    }
    case 'PublicationPlanned':
      return {
        ...state,
        counters: { ...state.counters, attempt: state.counters.attempt + 1 },
        publication: {
          ...pub,
          inFlight: {
            attempt: fact.attempt,
            writes: Math.min(fact.writes.length, state.pending.length),
            plannedAt: fact.at,
          },
        },
      };
    case 'PublicationConfirmed': {
      if (pub.inFlight?.attempt !== fact.attempt) return state;
      const planned = new Set(inFlightWriteIds(state));
      const published = new Set(Object.keys(fact.commits).filter((id) => planned.has(id)));
      const next = removeWrites(withPublished(state, fact, published), published);
      const publication: PublicationState = {
        ...omit(omit(pub, 'inFlight'), 'retry'),
        failures: 0,
        head: fact.head,
        lastPush: { commit: fact.head, at: fact.at },
      };
      return withPublication(next, publication);
    }
    case 'PublicationFailed': {
      const base = pub.inFlight?.attempt === fact.attempt ? omit(pub, 'inFlight') : pub;
      const publication: PublicationState = {
        ...base,
        failures: pub.failures + 1,
        retry: {
          retryAt: fact.retryAt,
          delayMs: fact.delayMs,
          since: pub.retry?.since ?? fact.at,
          cause: fact.cause,
        },
        lastError: { cause: fact.cause, at: fact.at },
      };
      if (fact.cause.kind === 'parent-missing' && publication.recovery) {
        publication.recovery = { ...publication.recovery, parentSeen: false };
      }
      return withPublication(state, publication);
    }
    case 'WriteRefused': {
      const target = fact.target ?? '';
      const refused = withRefusals(state.refused, target, [
        { writeId: fact.writeId, target, cause: fact.cause, at: fact.at },
      ]);
      const next = {
        ...removeWrites(state, new Set([fact.writeId])),
        refused,
        ...tallied(state, target, {
          counts: { 'write-refused': 1 },
          examples: [{ reason: 'write-refused', object: `write ${fact.writeId}`, message: fact.cause }],
          at: fact.at,
        }),
      };
      const publication = pub.inFlight?.attempt === fact.attempt ? omit(pub, 'inFlight') : pub;
      return withPublication(next, {
        ...publication,
        lastError: { cause: { kind: 'rejected', message: fact.cause }, at: fact.at },
      });
    }
    case 'ChangesRefused': {
      const refused = fact.changes.map(({ object, reason, message }) => ({
        object,
        target: fact.target,
        cause: `${reason}: ${message}`,
        at: fact.at,
      }));
      const counts: Record<string, number> = {};
      for (const { reason } of fact.changes) counts[reason] = (counts[reason] ?? 0) + 1;
      return {
        ...state,
        refused: withRefusals(state.refused, fact.target, refused),
        ...tallied(state, fact.target, { counts, examples: fact.changes, at: fact.at }),
      };
    }
    case 'NotRecordedCounted':
      return {
        ...state,
        ...tallied(state, fact.target, {
          counts: fact.counts,
          examples: fact.examples,
          ...(fact.audit ? { audit: fact.audit } : {}),
          at: fact.at,
        }),
      };
    case 'WritesDiscarded':
      return removeWrites(state, new Set(fact.writeIds));
    case 'RetryCleared':
      return withPublication(state, { ...omit(pub, 'retry'), failures: 0 });
    case 'RetryBroughtForward':
      if (!pub.retry) return state;
      return withPublication(state, { ...pub, retry: { ...pub.retry, retryAt: fact.at, delayMs: 0 } });
    case 'ParentRecoveryOpened':
      return withPublication(state, { ...pub, recovery: { openedAt: fact.at, parentSeen: false } });
    case 'ParentProbePlanned':
      return {
        ...state,
        counters: { ...state.counters, probe: state.counters.probe + 1 },
        publication: { ...pub, probe: { probe: fact.probe, plannedAt: fact.at } },
      };
    case 'ParentProbed': {
      if (pub.probe?.probe !== fact.probe) return state;
      const publication: PublicationState = omit(pub, 'probe');
      if (fact.found) {
        if (publication.recovery) publication.recovery = { ...publication.recovery, parentSeen: true };
        return withPublication(state, publication);
      }
      const cause = {
        kind: 'parent-missing' as const,
        message: fact.cause ?? 'parent branch not found on the remote',
      };
      return withPublication(state, {
        ...publication,
        failures: pub.failures + 1,
        retry: {
          retryAt: fact.retryAt ?? fact.at,
          delayMs: fact.delayMs ?? 0,
          since: pub.retry?.since ?? fact.at,
          cause,
        },
        lastError: { cause, at: fact.at },
      });
    }
    case 'ParentRecoveryClosed':
      return withPublication(state, omit(pub, 'recovery'));
    case 'IntakePaused':
      return withPublication(state, { ...pub, intakePaused: true });
    case 'IntakeResumed':
      return withPublication(state, { ...pub, intakePaused: false });
    case 'DeadlineScheduled': {
      const deadline: Deadline = {
        purpose: fact.purpose,
        owner: fact.owner,
        generation: fact.generation,
        dueAt: fact.dueAt,
      };
      return {
        ...state,
        counters: { ...state.counters, generation: Math.max(state.counters.generation, fact.generation) },
        deadlines: { ...state.deadlines, [deadlineKey(fact.purpose, fact.owner)]: deadline },
      };
    }
    case 'DeadlineCanceled':
    case 'DeadlineFired': {
      const key = deadlineKey(fact.purpose, fact.owner);
      if (state.deadlines[key]?.generation !== fact.generation) return state;
      return { ...state, deadlines: omit(state.deadlines, key) };
    }
    case 'OutcomeProjected':
      return updateSave(state, fact.saveId, (save) => ({ ...save, projectedAt: fact.at }));
    case 'ReceiptsForgotten': {
      const saves = { ...state.saves };
      const tombstones = { ...state.tombstones };
      for (const id of fact.saveIds) {
        delete saves[id];
        delete tombstones[id];
      }
      return { ...state, saves, tombstones };
    }
    case 'RemoteObservationRequested':
      return {
        ...state,
        counters: { ...state.counters, observation: state.counters.observation + 1 },
        publication: { ...pub, observation: fact.observation },
      };
    case 'RemoteObserved': {
      if (pub.observation !== fact.observation) return state;
      const publication: PublicationState = omit(pub, 'observation');
      if (fact.head !== undefined) publication.head = fact.head;
      return withPublication(state, publication);
    }
    case 'PublishModeChanged':
      if (fact.publish === 'push') return omit(state, 'proposal');
      return state.proposal ? state : { ...state, proposal: initialProposal() };
    case 'SavePushedForProposal':
      return updateSave(state, fact.saveId, (save) =>
        save.phase === 'WaitingForPush'
          ? { ...save, proposedCommit: fact.commit, writeId: fact.writeId }
          : save,
      );
    case 'SaveProposed':
      return updateSave(state, fact.saveId, (save) =>
        save.phase === 'WaitingForPush'
          ? { ...save, phase: 'Proposed', pullRequest: fact.pullRequest }
          : save,
      );
    case 'PullRequestCallPlanned':
      return withProposal(state, (proposal) => ({
        ...omit(proposal, 'nextAt'),
        requests: proposal.requests + 1,
        request: {
          id: fact.request,
          action: fact.action,
          plannedAt: fact.at,
          ...(state.publication.head !== undefined ? { head: state.publication.head } : {}),
        },
      }));
    case 'PullRequestRetryBroughtForward':
      return withProposal(state, (proposal) => ({ ...proposal, nextAt: fact.at }));
    case 'PullRequestCallFailed':
      return withProposal(state, (proposal) =>
        proposal.request?.id !== fact.request
          ? proposal
          : {
              ...omit(proposal, 'request'),
              nextAt: fact.retryAt,
              lastError: { message: fact.cause, at: fact.at, kind: fact.kind },
            },
      );
    case 'PullRequestOpen':
      return withProposal(state, (proposal) =>
        proposal.request?.id !== fact.request
          ? proposal
          : {
              ...omit(omit(proposal, 'request'), 'lastError'),
              pullRequest: fact.pullRequest,
              synced: fact.synced,
              // a push the call did not show is told at once, else the open pull request is read later
              ...(fact.synced ? { nextAt: fact.nextAt } : {}),
            },
      );
    case 'PullRequestEnded':
      return withProposal(state, (proposal) =>
        proposal.request?.id !== fact.request
          ? proposal
          : {
              ...omit(omit(omit(proposal, 'request'), 'lastError'), 'pullRequest'),
              restart: fact.restart,
              // what the ended pull request showed is merged or dropped; the next one lists what comes after
              ...(fact.restart ? { objects: [], more: 0 } : {}),
              ended: {
                ...fact.pullRequest,
                state: fact.state,
                ...(fact.mergeCommit !== undefined ? { mergeCommit: fact.mergeCommit } : {}),
                at: fact.at,
              },
            },
      );
    default: {
      const unhandled: never = fact;
      return unhandled;
    }
  }
}

function withProposal(state: BranchState, change: (proposal: ProposalState) => ProposalState): BranchState {
  return state.proposal ? { ...state, proposal: change(state.proposal) } : state;
}
