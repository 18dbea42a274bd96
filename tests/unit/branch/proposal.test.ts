import { type BranchCommand, owedEffects, publicationStatus, saveStatus } from '../../../shared/branch';
import { pullRequestResultSchema } from '../../../shared/branch/commands';
import { PULL_REQUEST_RETRY_FLOOR_MS } from '../../../shared/branch/proposal';
import { admit, at, Branch, bob, ofType, registerSave, tick } from './scenario';

const MERGE_COMMIT = 'a'.repeat(40);
const POLL_MS = 30_000;

function propose(seconds: number): BranchCommand {
  return {
    type: 'ChangeSettings',
    at: at(seconds),
    target: 'prod',
    parentBranch: 'main',
    publish: 'propose',
  };
}

/** The call to the host the branch owes, if any. */
function owedCall(branch: Branch) {
  const call = owedEffects(branch.state).find((effect) => effect.type === 'pull-request');
  return call?.type === 'pull-request' ? call : undefined;
}

function answer(
  branch: Branch,
  seconds: number,
  result: Extract<BranchCommand, { type: 'RecordPullRequest' }>['result'],
): Branch {
  const call = owedCall(branch);
  if (!call) throw new Error('no call to the host owed');
  return branch.run({ type: 'RecordPullRequest', at: at(seconds), request: call.request, result });
}

const PR = { number: 7, url: 'https://github.example/org/state/pull/7' };

/** A proposing branch whose save `s1` (alice's change of web) was pushed to the proposed branch. */
function pushed(): Branch {
  return new Branch()
    .run(propose(0), registerSave(0, 's1', { attachTimeoutMs: 10_000 }), admit(0.5), tick(6))
    .answer(7);
}

describe('a branch that proposes its commits in a pull request', () => {
  it('a pushed save waits for its pull request; the host is asked to open it, its description naming the objects and authors', () => {
    const branch = pushed();
    expect(ofType(branch.last, 'SaveResolved')).toEqual([]);
    expect(saveStatus(branch.state, 's1', at(7))?.phase).toBe('WaitingForPush');
    const call = owedCall(branch);
    expect(call).toMatchObject({ action: 'sync', base: 'main' });
    expect(call?.pullRequest).toBeUndefined();
    expect(call?.text.title).toContain('prod');
    expect(call?.text.description).toContain('`prod/apps/deployments/web.yaml` by Alice');
  });

  it('the opened pull request proposes the save (phase Proposed, with its URL); nothing is asked again before the poll interval', () => {
    const branch = answer(pushed(), 8, { outcome: 'open', pullRequest: PR });
    expect(branch.last).toContainEqual(
      expect.objectContaining({ type: 'SaveProposed', saveId: 's1', pullRequest: PR }),
    );
    expect(saveStatus(branch.state, 's1', at(8))).toMatchObject({ phase: 'Proposed' });
    expect(branch.state.saves.s1?.pullRequest).toEqual(PR);
    branch.run(tick(8 + POLL_MS / 1000 - 1));
    expect(owedCall(branch)).toBeUndefined();
    branch.run(tick(8 + POLL_MS / 1000));
    expect(owedCall(branch)).toMatchObject({ action: 'read', pullRequest: 7 });
  });

  it('a merge resolves the proposed save Committed with the merge commit, and the next change starts the branch again from its base', () => {
    const branch = answer(pushed(), 8, { outcome: 'open', pullRequest: PR }).run(tick(38));
    answer(branch, 39, { outcome: 'merged', pullRequest: { ...PR, mergeCommit: MERGE_COMMIT } });
    expect(branch.state.saves.s1).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: MERGE_COMMIT,
    });
    expect(branch.state.proposal?.pullRequest).toBeUndefined();
    // its status (a CommitRequest's): the merge commit on the base, with the pull request that proposed it
    const status = saveStatus(branch.state, 's1', at(40));
    expect(status).toMatchObject({ commit: MERGE_COMMIT, branch: 'main', pullRequest: PR });
    expect(status?.conditions.find((condition) => condition.type === 'Ready')?.message).toBe(
      `committed ${MERGE_COMMIT} on main: pull request #7 (${PR.url}) was merged`,
    );
    branch.run(admit(50, { author: bob }), tick(56));
    const publish = owedEffects(branch.state).find((effect) => effect.type === 'publish');
    expect(publish).toMatchObject({ restart: true, parentBranch: 'main' });
    branch.answer(57);
    expect(branch.state.proposal?.restart).toBe(false);
    // the new pull request lists only what came after the merge
    expect(owedCall(branch)?.text.description).not.toContain('by Alice');
    expect(owedCall(branch)?.pullRequest).toBeUndefined();
  });

  it('a close without merge resolves the proposed save PullRequestClosed, naming the pull request', () => {
    const branch = answer(pushed(), 8, { outcome: 'open', pullRequest: PR }).run(tick(38));
    answer(branch, 39, { outcome: 'closed', pullRequest: PR });
    expect(branch.state.saves.s1).toMatchObject({ phase: 'Resolved', outcome: 'PullRequestClosed' });
    expect(branch.state.saves.s1?.cause).toContain(PR.url);
    expect(branch.state.proposal?.restart).toBe(true);
  });

  it('a push while the pull request was being opened is told to the host at once after', () => {
    const branch = pushed().run(admit(8, { author: bob, path: 'prod/apps/deployments/api.yaml' }), tick(20));
    branch.answer(21); // pushed while the sync planned at 7 is in flight
    answer(branch, 22, { outcome: 'open', pullRequest: PR });
    expect(owedCall(branch)).toMatchObject({ action: 'sync', pullRequest: 7 });
    expect(owedCall(branch)?.text.description).toContain('`prod/apps/deployments/api.yaml` by Bob');
  });

  it('a pull request merged before it showed the last push: the save of that push waits for the next one, the branch is kept', () => {
    const branch = answer(pushed(), 8, { outcome: 'open', pullRequest: PR });
    branch.run(registerSave(9, 's2', { author: bob }), admit(9.5, { author: bob }), tick(20)).answer(21);
    // the sync of that push finds the pull request merged already
    answer(branch, 22, { outcome: 'merged', pullRequest: { ...PR, mergeCommit: MERGE_COMMIT } });
    expect(branch.state.saves.s1).toMatchObject({ outcome: 'Committed', commit: MERGE_COMMIT });
    expect(branch.state.saves.s2?.phase).toBe('WaitingForPush');
    expect(branch.state.proposal?.restart).toBe(false);
    // a new pull request is opened for it
    expect(owedCall(branch)).toMatchObject({ action: 'sync' });
    expect(owedCall(branch)?.pullRequest).toBeUndefined();
  });

  it("a host's failure is retried after the poll interval, and shown", () => {
    const branch = answer(pushed(), 8, { outcome: 'failed', cause: { message: 'HTTP 503' } });
    expect(branch.state.proposal?.lastError?.message).toBe('HTTP 503');
    expect(owedCall(branch)).toBeUndefined();
    branch.run(tick(8 + POLL_MS / 1000));
    expect(owedCall(branch)).toMatchObject({ action: 'sync' });
  });

  it('a refused token is kept with its kind: the repository is Stalled CredentialsRefused until a call succeeds', () => {
    const branch = answer(pushed(), 8, {
      outcome: 'failed',
      kind: 'credentialsRefused',
      cause: { message: 'HTTP 401: Bad credentials' },
    });
    expect(branch.state.proposal?.lastError).toMatchObject({ kind: 'credentials-refused' });
    const stalled = publicationStatus(branch.state, at(9)).conditions;
    expect(stalled).toContainEqual(
      expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'CredentialsRefused' }),
    );
    expect(stalled.find((condition) => condition.type === 'Ready')?.message).toContain('Bad credentials');
    // retried on the poll interval; a success clears it
    branch.run(tick(8 + POLL_MS / 1000));
    answer(branch, 40, { outcome: 'open', pullRequest: PR });
    expect(branch.state.proposal?.lastError).toBeUndefined();
    expect(publicationStatus(branch.state, at(41)).conditions).toContainEqual(
      expect.objectContaining({ type: 'Stalled', status: 'False', reason: 'Current' }),
    );
  });

  it('a refresh brings the failed call forward (the token was replaced), as it does a push', () => {
    const branch = answer(pushed(), 8, {
      outcome: 'failed',
      kind: 'credentialsRefused',
      cause: { message: 'HTTP 401: Bad credentials' },
    });
    branch.run(tick(9));
    expect(owedCall(branch)).toBeUndefined();
    branch.run({ type: 'RefreshRemote', at: at(10) });
    expect(owedCall(branch)).toMatchObject({ action: 'sync' });
    // a refresh with no failure waiting changes nothing of the calls
    const healthy = answer(branch, 11, { outcome: 'open', pullRequest: PR });
    healthy.run({ type: 'RefreshRemote', at: at(12) });
    expect(ofType(healthy.last, 'PullRequestRetryBroughtForward')).toEqual([]);
    expect(owedCall(healthy)).toBeUndefined();
  });

  it('a transient or rejected failure is not Stalled: the status shows it on the target, the branch stays Ready', () => {
    for (const kind of ['transient', 'rejected'] as const) {
      const branch = answer(pushed(), 8, { outcome: 'failed', kind, cause: { message: 'HTTP 422' } });
      expect(branch.state.proposal?.lastError).toMatchObject({ kind, message: 'HTTP 422' });
      expect(publicationStatus(branch.state, at(9)).conditions).toContainEqual(
        expect.objectContaining({ type: 'Stalled', status: 'False' }),
      );
    }
  });

  it("the host's Retry-After is honoured instead of the poll interval, no sooner than a second and no later than the retry maximum", () => {
    const cases = [
      { retryAfterMs: 90_000, dueS: 8 + 90 },
      { retryAfterMs: 2_000, dueS: 8 + 2 },
      { retryAfterMs: 0, dueS: 8 + PULL_REQUEST_RETRY_FLOOR_MS / 1000 },
      // the default retry maximum, 5 minutes
      { retryAfterMs: 3_600_000, dueS: 8 + 300 },
    ];
    for (const { retryAfterMs, dueS } of cases) {
      const branch = answer(pushed(), 8, {
        outcome: 'failed',
        kind: 'transient',
        cause: { message: 'HTTP 429' },
        retryAfterMs,
      });
      expect({ retryAfterMs, nextAt: branch.state.proposal?.nextAt }).toEqual({
        retryAfterMs,
        nextAt: at(dueS),
      });
      branch.run(tick(dueS - 0.5));
      expect(owedCall(branch)).toBeUndefined();
      branch.run(tick(dueS));
      expect(owedCall(branch)).toMatchObject({ action: 'sync' });
    }
  });

  it('a failure written before failures were classified parses, and is retried as a transient one', () => {
    const written = { outcome: 'failed', cause: { message: 'HTTP 503' } };
    const result = pullRequestResultSchema.parse(written);
    const branch = answer(pushed(), 8, result);
    expect(branch.state.proposal?.lastError).toMatchObject({ kind: 'transient', message: 'HTTP 503' });
    expect(branch.state.proposal?.nextAt).toBe(at(8 + POLL_MS / 1000));
  });

  it('an answer to a call no longer in flight changes nothing', () => {
    const branch = pushed();
    const stale = {
      type: 'RecordPullRequest' as const,
      at: at(8),
      request: 'pull-request-9',
      result: { outcome: 'open' as const, pullRequest: PR },
    };
    branch.run(stale);
    expect(
      branch.last.filter((fact) => fact.type.startsWith('PullRequest') || fact.type === 'SaveProposed'),
    ).toEqual([]);
  });

  it('is replayed from its facts to the same state', () => {
    const branch = answer(pushed(), 8, { outcome: 'open', pullRequest: PR }).run(tick(38));
    answer(branch, 39, { outcome: 'merged', pullRequest: { ...PR, mergeCommit: MERGE_COMMIT } });
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('a branch that pushes resolves its saves Committed at the push, as before', () => {
    const branch = new Branch()
      .run(registerSave(0, 's1', { attachTimeoutMs: 10_000 }), admit(0.5), tick(6))
      .answer(7);
    expect(branch.state.saves.s1).toMatchObject({ outcome: 'Committed' });
    expect(owedCall(branch)).toBeUndefined();
  });
});
