// During a deployment's overlap the engine runs entities on old and new workers alike (they are
// not versioned: docs/upgrades.md), so this code meets the state a later release wrote. It applies
// the operation and carries that state forward: the later version and the fields it added are kept.
import { runBranchOperation } from '../../../../shared/app/entity/branch-operations';
import { BRANCH_STATE_VERSION } from '../../../../shared/app/entity/stored-state';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const admit = (second: number, path: string) => ({
  requestId: `request-${second}-0000`,
  commands: [
    {
      type: 'ChangeSettings',
      at: at(second),
      target: 'prod',
      path: 'clusters/prod',
      window: { idleTimeoutMs: 5000, maxDurationMs: 60_000 },
      prune: 'Always',
    },
    {
      type: 'AdmitChanges',
      at: at(second),
      target: 'prod',
      author: { name: 'alice', username: 'alice' },
      attribution: 'watch',
      changes: [{ path, operation: 'upsert', payloadRef: `sha256:${'a'.repeat(64)}`, bytes: 10 }],
    },
  ],
});

/** The state as a next release would store it: one version up, with a field at each level. */
function nextRelease(state: object) {
  const current = state as { branch: Record<string, unknown> };
  return {
    ...current,
    labels: { team: 'shop' },
    branch: { ...current.branch, version: BRANCH_STATE_VERSION + 1, owners: ['alice'] },
  };
}

it('applies an operation to a newer state, keeping its version and the fields it added', () => {
  const { state } = runBranchOperation(undefined, 'apply', admit(0, 'clusters/prod/a.yaml'));
  const newer = nextRelease(state);
  const ran = runBranchOperation(newer, 'apply', admit(1, 'clusters/prod/b.yaml'));
  expect(ran.answer).toEqual({ ok: true });
  expect(ran.state).toMatchObject({
    labels: { team: 'shop' },
    branch: { version: BRANCH_STATE_VERSION + 1, owners: ['alice'] },
  });
  expect(JSON.stringify(ran.state.branch.window)).toContain('clusters/prod/b.yaml');
  // A signal delivered again is still recognised in the newer state: nothing changes.
  const again = runBranchOperation(ran.state, 'apply', admit(1, 'clusters/prod/b.yaml'));
  expect(again.state).toEqual(ran.state);
  // The driver's plan closes the window: its writes go pending, in the newer state still.
  const planned = runBranchOperation(again.state, 'plan', { at: at(30) });
  expect(planned.answer).toMatchObject({ ok: true, plan: expect.any(Object) });
  expect(planned.state).toMatchObject({
    labels: { team: 'shop' },
    branch: { version: BRANCH_STATE_VERSION + 1, owners: ['alice'], window: null, pendingItems: 2 },
  });
});

it('still refuses a state with no version, leaving it as stored', () => {
  const stored = { branch: { pending: [] }, snapshots: {} };
  const ran = runBranchOperation(stored, 'apply', admit(0, 'clusters/prod/a.yaml'));
  expect(ran.answer).toEqual({ ok: false, error: 'the stored branch state has no version' });
  expect(ran.state).toBe(stored);
});
