import type { CommandOf, WrittenRuns } from './commands';
import { type Decision, record } from './context';
import { cutTo } from './field-limits';
import type { PendingWrite } from './model';
import { FAILURE_KINDS, type PullRequestFailureKind } from './publication-outcome';
import { AUTHOR_CHARS, PATH_CHARS } from './record-activity';
import type { BranchState } from './state';
import { addMs, toMs } from './time';

/** Objects a proposal lists (its pull request's description); the rest are counted in `more`. */
export const PROPOSED_OBJECTS_KEPT = 20;
/** Authors one proposed object lists. */
export const AUTHORS_PER_OBJECT = 2;
/** How often an open pull request is read when the configuration says nothing (`limits.pullRequestPoll`). */
export const DEFAULT_PULL_REQUEST_POLL_MS = 30_000;

/** An object the open proposal changes, with who changed it. */
export interface ProposedObject {
  /** Its path in the repository. */
  path: string;
  authors: string[];
}

/** A pull request as the branch knows it: the host's number and the page a person opens. */
export interface PullRequestRef {
  number: number;
  url: string;
}

/**
 * A branch whose targets propose (`publish: propose`, version 4 on): its commits land on this
 * branch, and one pull request at a time proposes them to `parentBranch`.
 */
export interface ProposalState {
  /** The open pull request, once the host answered with it. */
  pullRequest?: PullRequestRef;
  /** False from a push until the host was told of it: the pull request is opened or updated. */
  synced: boolean;
  /** A call to the host in flight: `sync` opens or updates the pull request, `read` asks whether it was merged. */
  request?: { id: string; action: 'sync' | 'read'; plannedAt: string; head?: string };
  /** Nothing is asked of the host before this: the next read of the open pull request, or a failed call's retry. */
  nextAt?: string;
  /** The next publication starts the branch again from its base's head: its pull request ended with nothing more on it. */
  restart: boolean;
  /** What the pull request proposes, oldest first (`PROPOSED_OBJECTS_KEPT`), and how many more. */
  objects: ProposedObject[];
  more: number;
  /** Calls to the host planned so far: their ids. */
  requests: number;
  /** The host's last failure, until a call succeeds; `kind` as a push's (absent when written before it was classified). */
  lastError?: { message: string; at: string; kind?: PullRequestFailureKind };
  /** The last pull request that ended, and how. */
  ended?: PullRequestRef & { state: 'merged' | 'closed'; mergeCommit?: string; at: string };
}

/** The state of a branch that starts proposing. */
export function initialProposal(): ProposalState {
  return { synced: true, restart: false, objects: [], more: 0, requests: 0 };
}

/** The proposal with the objects `write` changed added (by path, newest author last, bounded). */
export function withProposedObjects(
  proposal: ProposalState,
  write: PendingWrite,
  written?: WrittenRuns[string],
): ProposalState {
  const author = cutTo(AUTHOR_CHARS)(write.author.name);
  const objects = [...proposal.objects];
  let listed: { path: string }[] = write.changes ?? [];
  let more = proposal.more + (write.changes || write.runs ? 0 : (write.snapshot?.objects ?? 0));
  if (write.runs) {
    // a write's runs are read only by the publish activity: the first changes it reported are
    // listed (their paths under the target's folder), the others counted
    if (written) {
      const prefix = write.targetPath === '.' ? '' : `${write.targetPath}/`;
      listed = written.changes.map((change) => ({ path: `${prefix}${change.path}` }));
      more += written.count - listed.length;
    } else more += write.runs.reduce((sum, run) => sum + run.n, 0);
  }
  for (const change of listed) {
    // a write's change paths are the repository's (under the target's folder)
    const path = cutTo(PATH_CHARS)(change.path);
    const at = objects.findIndex((object) => object.path === path);
    if (at >= 0) {
      const known = objects[at]!;
      const authors = [...known.authors.filter((name) => name !== author), author].slice(-AUTHORS_PER_OBJECT);
      objects[at] = { path, authors };
    } else if (objects.length < PROPOSED_OBJECTS_KEPT) {
      objects.push({ path, authors: [author] });
    } else {
      more++;
    }
  }
  return { ...proposal, objects, more };
}

/** The pull request's title and description: the target's name, then the proposed objects and their authors. */
export function pullRequestText(state: BranchState): { title: string; description: string } {
  const proposal = state.proposal ?? initialProposal();
  const targets = Object.keys(state.targets).sort().join(', ') || 'no target';
  const title = `kubescribe: changes of ${targets}`;
  const lines = [
    `Changes kubescribe recorded from the cluster for ${targets}, to review and merge.`,
    '',
    ...proposal.objects.map((object) => `- \`${object.path}\` by ${object.authors.join(', ')}`),
  ];
  if (proposal.more > 0) lines.push(`- and ${proposal.more} more (the commits name each)`);
  if (proposal.objects.length === 0 && proposal.more === 0)
    lines.push('- no object changed (a saved message)');
  return { title, description: lines.join('\n') };
}

/**
 * Plans the next call to the host: after a push, the pull request is opened or updated (at once, or
 * at a failed call's retry); while it is open and shows every push, it is read at the poll interval
 * to see it merged or closed. One call at a time.
 */
export function planProposal(decision: Decision): void {
  const proposal = decision.state.proposal;
  if (!proposal || proposal.request) return;
  const due = proposal.nextAt === undefined || toMs(proposal.nextAt) <= decision.atMs;
  if (!due) return;
  const id = `pull-request-${proposal.requests + 1}`;
  if (!proposal.synced) {
    record(decision, { type: 'PullRequestCallPlanned', request: id, action: 'sync' });
  } else if (proposal.pullRequest) {
    record(decision, { type: 'PullRequestCallPlanned', request: id, action: 'read' });
  }
}

/** A refresh brings a failed call's retry forward, as a push's: the operator replaced the token, or the host is back. */
export function bringPullRequestCallForward(decision: Decision): void {
  const proposal = decision.state.proposal;
  if (!proposal?.lastError || proposal.request || proposal.nextAt === undefined) return;
  if (toMs(proposal.nextAt) <= decision.atMs) return;
  record(decision, { type: 'PullRequestRetryBroughtForward', reason: 'refresh' });
}

/** When the branch next asks its host something, if it owes a call and none is in flight. */
export function proposalDueMs(state: BranchState): number | undefined {
  const proposal = state.proposal;
  if (!proposal || proposal.request || proposal.nextAt === undefined) return undefined;
  return !proposal.synced || proposal.pullRequest ? toMs(proposal.nextAt) : undefined;
}

/** The least wait before a call the host asked to retry at once (`Retry-After: 0`): no tight loop of calls. */
export const PULL_REQUEST_RETRY_FLOOR_MS = 1_000;

/**
 * How long a failed call waits: the host's `Retry-After` when it gave one (it said when to come back;
 * bounded by the retry maximum, as a push's), else the poll interval.
 */
function retryDelayMs(state: BranchState, retryAfterMs: number | undefined): number {
  const pollMs = state.limits.pullRequestPollMs ?? DEFAULT_PULL_REQUEST_POLL_MS;
  if (retryAfterMs === undefined) return pollMs;
  return Math.min(Math.max(retryAfterMs, PULL_REQUEST_RETRY_FLOOR_MS), state.limits.retryMaxMs);
}

/**
 * Records what the host answered. An open pull request proposes the saves whose commits it now
 * shows; a merged one resolves the proposed saves with its merge commit, a closed one resolves them
 * `PullRequestClosed`; either way the next change opens a new pull request, from a branch started
 * again on the base when nothing was pushed after what the ended one showed. A failure is retried
 * after the host's `Retry-After` or the poll interval, and kept with its kind for the status. An answer to a call no longer in flight changes nothing.
 */
export function recordPullRequest(decision: Decision, command: CommandOf<'RecordPullRequest'>): void {
  const proposal = decision.state.proposal;
  if (!proposal?.request || proposal.request.id !== command.request) return;
  const action = proposal.request.action;
  const result = command.result;
  const pollMs = decision.state.limits.pullRequestPollMs ?? DEFAULT_PULL_REQUEST_POLL_MS;
  if (result.outcome === 'failed') {
    record(decision, {
      type: 'PullRequestCallFailed',
      request: command.request,
      cause: result.cause.message,
      kind: FAILURE_KINDS[result.kind ?? 'transient'],
      retryAt: addMs(decision.at, retryDelayMs(decision.state, result.retryAfterMs)),
    });
    return;
  }
  const pullRequest = { number: result.pullRequest.number, url: result.pullRequest.url };
  if (result.outcome === 'open') {
    record(decision, {
      type: 'PullRequestOpen',
      request: command.request,
      pullRequest,
      // a push after the call was planned is not yet shown: the next call tells the host of it
      synced: action === 'sync' ? proposal.request.head === decision.state.publication.head : proposal.synced,
      nextAt: addMs(decision.at, pollMs),
    });
    if (action !== 'sync') return;
    for (const save of Object.values(decision.state.saves)) {
      if (save.phase === 'WaitingForPush' && save.proposedCommit !== undefined)
        record(decision, { type: 'SaveProposed', saveId: save.id, pullRequest });
    }
    return;
  }
  const mergeCommit = result.outcome === 'merged' ? result.pullRequest.mergeCommit : undefined;
  record(decision, {
    type: 'PullRequestEnded',
    request: command.request,
    pullRequest,
    state: result.outcome,
    ...(mergeCommit !== undefined ? { mergeCommit } : {}),
    // a push the ended pull request never showed is still on the branch: the next one proposes it
    restart: proposal.synced,
  });
  for (const save of Object.values(decision.state.saves)) {
    if (save.phase !== 'Proposed' || save.pullRequest?.number !== pullRequest.number) continue;
    record(decision, {
      type: 'SaveResolved',
      saveId: save.id,
      ...(result.outcome === 'merged'
        ? {
            outcome: 'Committed' as const,
            reason: 'merged' as const,
            ...(mergeCommit !== undefined ? { commit: mergeCommit } : {}),
          }
        : {
            outcome: 'PullRequestClosed' as const,
            reason: 'pull-request-closed' as const,
            cause: `pull request #${pullRequest.number} was closed without merging: ${pullRequest.url}`,
          }),
    });
  }
}

/** A proposing target's pull request as status, the read API and the dashboard show it. */
export interface PullRequestView {
  /** The pull request open now, if any. */
  open: (PullRequestRef & { state: 'open' }) | null;
  /** The last one merged or closed, if any. */
  ended: ProposalState['ended'] | null;
  /** True while a push is not yet shown by a pull request (the host is told at the next driver step). */
  unproposed: boolean;
  /** The host's last failure, until a call succeeds; `kind` `credentials-refused` is the token refused. */
  lastError: { message: string; at: string; kind?: PullRequestFailureKind } | null;
}

/** The pull request view of a proposing branch; undefined for a branch that pushes. */
export function pullRequestView(state: BranchState): PullRequestView | undefined {
  const proposal = state.proposal;
  if (!proposal) return undefined;
  return {
    open: proposal.pullRequest ? { ...proposal.pullRequest, state: 'open' } : null,
    ended: proposal.ended ?? null,
    unproposed: !proposal.synced,
    lastError: proposal.lastError ?? null,
  };
}
