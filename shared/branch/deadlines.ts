import { nextReleaseMs } from './attribution';
import { type Decision, record } from './context';
import type { Deadline, DeadlinePurpose } from './model';
import { proposalDueMs } from './proposal';
import { receiptExpiryMs } from './saves';
import { type BranchState, deadlineKey, publicationHeldBy } from './state';
import { toIso, toMs } from './time';
import { windowCloseDue } from './windows';

interface WantedDeadline {
  purpose: DeadlinePurpose;
  owner: string;
  dueMs: number;
}

const BRANCH = 'branch';

/** The deadlines the state needs now: derived from windows, saves, publication and receipts. */
function wantedDeadlines(state: BranchState): WantedDeadline[] {
  const wanted: WantedDeadline[] = [];
  if (state.window) {
    wanted.push({
      purpose: 'window-close',
      owner: state.window.id,
      dueMs: windowCloseDue(state.window).dueMs,
    });
  }
  let receiptMs = Number.POSITIVE_INFINITY;
  for (const save of Object.values(state.saves)) {
    if (save.phase === 'WaitingForWindow') {
      wanted.push({ purpose: 'save-attach', owner: save.id, dueMs: toMs(save.attachDeadline) });
    }
    const expiry = receiptExpiryMs(save, state.limits.receiptRetentionMs);
    if (expiry !== undefined && expiry < receiptMs) receiptMs = expiry;
  }
  for (const at of Object.values(state.tombstones)) {
    receiptMs = Math.min(receiptMs, toMs(at) + state.limits.receiptRetentionMs);
  }
  if (receiptMs !== Number.POSITIVE_INFINITY)
    wanted.push({ purpose: 'receipt-expiry', owner: BRANCH, dueMs: receiptMs });

  const release = nextReleaseMs(state);
  if (release !== undefined) wanted.push({ purpose: 'attribution-wait', owner: BRANCH, dueMs: release });
  const proposalDue = proposalDueMs(state);
  if (proposalDue !== undefined) wanted.push({ purpose: 'pull-request', owner: BRANCH, dueMs: proposalDue });

  const publication = state.publication;
  // A suspended target's pending write holds publication: no retry or cooldown is due until it resumes.
  const held = publicationHeldBy(state) !== undefined;
  if (!publication.inFlight && !publication.probe && state.pending.length > 0 && !held) {
    if (publication.retry) {
      const probing = publication.recovery !== undefined && !publication.recovery.parentSeen;
      wanted.push({
        purpose: probing ? 'parent-probe' : 'publication-retry',
        owner: BRANCH,
        dueMs: toMs(publication.retry.retryAt),
      });
    } else if (publication.lastPush) {
      wanted.push({
        purpose: 'push-cooldown',
        owner: BRANCH,
        dueMs: toMs(publication.lastPush.at) + state.limits.pushCooldownMs,
      });
    }
  }
  return wanted;
}

/** Records the firing of every recorded deadline that is due at the decision's time. */
export function fireDueDeadlines(decision: Decision): void {
  const due = Object.values(decision.state.deadlines)
    .filter((deadline) => toMs(deadline.dueAt) <= decision.atMs)
    .sort((a, b) => toMs(a.dueAt) - toMs(b.dueAt) || a.generation - b.generation);
  for (const deadline of due) {
    decision.fired.push(deadline.purpose);
    record(decision, {
      type: 'DeadlineFired',
      purpose: deadline.purpose,
      owner: deadline.owner,
      generation: deadline.generation,
    });
  }
}

/**
 * Makes the recorded deadlines match the ones the state needs: a moved deadline is scheduled again
 * under a new generation, one no longer needed is canceled.
 */
export function reconcileDeadlines(decision: Decision): void {
  const recordedDeadlines = decision.state.deadlines;
  const wantedKeys = new Set<string>();
  for (const want of wantedDeadlines(decision.state)) {
    const key = deadlineKey(want.purpose, want.owner);
    wantedKeys.add(key);
    const existing: Deadline | undefined = recordedDeadlines[key];
    if (existing && toMs(existing.dueAt) === want.dueMs) continue;
    record(decision, {
      type: 'DeadlineScheduled',
      purpose: want.purpose,
      owner: want.owner,
      generation: decision.state.counters.generation + 1,
      dueAt: toIso(want.dueMs),
    });
  }
  for (const [key, deadline] of Object.entries(recordedDeadlines)) {
    if (wantedKeys.has(key)) continue;
    record(decision, {
      type: 'DeadlineCanceled',
      purpose: deadline.purpose,
      owner: deadline.owner,
      generation: deadline.generation,
    });
  }
}
