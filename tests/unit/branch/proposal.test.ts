import { type BranchCommand, owedEffects, saveStatus } from '../../../shared/branch';
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
