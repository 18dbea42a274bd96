import { CUSTOM_STATUS_LIMIT_CHARS, driverStatus } from '../../../../shared/app/driver/driver-status';
import { runBranchOperation } from '../../../../shared/app/entity/branch-operations';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
// A remote's refusal text is unbounded: this is what a long one, with every character escaped in JSON, can add.
const hugeCause = '"\u0001<'.repeat(40_000);

function failingBranch() {
  const admitted = runBranchOperation(undefined, 'apply', {
    commands: [
      {
        type: 'ChangeSettings',
        at: at(0),
        target: 'prod',
        path: 'clusters/prod',
        window: { idleTimeoutMs: 1000, maxDurationMs: 60_000 },
        prune: 'Always',
      },
      {
        type: 'AdmitChanges',
        at: at(0),
        target: 'prod',
        author: { name: 'alice', email: 'alice@example.com', username: 'alice' },
        attribution: 'watch',
        changes: [
          {
            path: 'clusters/prod/a.yaml',
            operation: 'upsert',
            payloadRef: `sha256:${'a'.repeat(64)}`,
            bytes: 10,
          },
        ],
      },
    ],
  }).state;
  const planned = runBranchOperation(admitted, 'plan', { at: at(2) });
  const publish = planned.answer.ok
    ? planned.answer.plan?.effects.find((e) => e.type === 'publish')
    : undefined;
  if (publish?.type !== 'publish') throw new Error('expected a publication');
  const failed = runBranchOperation(planned.state, 'apply', {
    commands: [
      {
        type: 'RecordPublicationResult',
        at: at(3),
        attempt: publish.attempt,
        result: { outcome: 'transient', cause: { message: hugeCause } },
      },
    ],
  }).state;
  const plan = runBranchOperation(failed, 'plan', { at: at(4) }).answer;
  if (!plan.ok || !plan.plan) throw new Error('expected a plan');
  return plan.plan.status;
}

describe("the driver's custom status", () => {
  it('stays under the extension limit of 16 KB of UTF-16 with a maximal failure cause and names', () => {
    const status = failingBranch();
    // The whole publication status repeats the cause (last error, conditions): over the limit by itself.
    expect(JSON.stringify({ repository: 'state', branch: 'main', ...status }).length).toBeGreaterThan(
      CUSTOM_STATUS_LIMIT_CHARS,
    );
    const shown = driverStatus(
      { branchKey: 'b-1', repository: 'r'.repeat(5000), branch: 'b'.repeat(5000) },
      status,
    );
    expect(JSON.stringify(shown).length).toBeLessThanOrEqual(CUSTOM_STATUS_LIMIT_CHARS);
    expect(shown).toMatchObject({ pendingWrites: 1 });
    expect(shown.lastError?.startsWith(hugeCause.slice(0, 30))).toBe(true);
  });

  it('names the repository and branch it publishes to', () => {
    const shown = driverStatus({ branchKey: 'b-1', repository: 'state', branch: 'main' }, failingBranch());
    expect(shown).toMatchObject({ repository: 'state', branch: 'main', retryAt: expect.any(String) });
  });
});
