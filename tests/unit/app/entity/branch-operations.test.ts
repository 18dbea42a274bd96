import {
  publicationInFlight,
  runBranchOperation,
  snapshotKey,
  snapshotRef,
} from '../../../../shared/app/entity/branch-operations';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const settings = (second: number) => [
  {
    type: 'ChangeSettings',
    at: at(second),
    target: 'prod',
    path: 'clusters/prod',
    window: { idleTimeoutMs: 5000, maxDurationMs: 60_000 },
    prune: 'Always',
  },
];

function admit(second: number, path: string) {
  return {
    commands: [
      ...settings(second),
      {
        type: 'AdmitChanges',
        at: at(second),
        target: 'prod',
        author: { name: 'alice', username: 'alice' },
        attribution: 'watch',
        changes: [{ path, operation: 'upsert', payloadRef: `sha256:${'a'.repeat(64)}`, bytes: 10 }],
      },
    ],
  };
}

describe('the branch entity operations', () => {
  it('answers a malformed input with ok: false and changes nothing', () => {
    const { state } = runBranchOperation(undefined, 'apply', admit(0, 'clusters/prod/a.yaml'));
    const refused = runBranchOperation(state, 'apply', { commands: [{ type: 'Explode', at: at(1) }] });
    expect(refused.answer).toMatchObject({ ok: false, error: expect.stringContaining('apply') });
    expect(refused.state).toBe(state);
  });

  it.each([
    '/etc/passwd',
    '../outside.yaml',
    'clusters/prod/../../.github/workflows/pwn.yml',
    'clusters/prod/.GIT/hooks/pre-commit',
    'clusters/prod//a.yaml',
    'clusters/prod/a\u0007.yaml',
    '.github/workflows/pwn.yml',
  ])('refuses a change at %p (unsafe, or outside its target) with ok: false and changes nothing', (path) => {
    const { state } = runBranchOperation(undefined, 'apply', admit(0, 'clusters/prod/a.yaml'));
    const refused = runBranchOperation(state, 'apply', admit(1, path));
    expect(refused.answer).toEqual({ ok: false, error: expect.stringContaining(path) });
    expect(refused.state).toBe(state);
  });

  it.each(['/', '..', 'clusters/../..', '.Git', 'clusters/.git', 'a//b', 'clusters/prod/', 'a\u0000b'])(
    'refuses a target path %p with ok: false and changes nothing, in apply, withdraw and snapshot-complete',
    (path) => {
      const { state } = runBranchOperation(undefined, 'apply', admit(0, 'clusters/prod/a.yaml'));
      const settings = { ...admit(1, 'x').commands[0], path };
      const inputs = {
        apply: { commands: [settings] },
        withdraw: { command: settings, saveId: 'x' },
        'snapshot-complete': {
          at: at(1),
          snapshotId: 'snap',
          target: 'prod',
          settings: [settings],
          scope: {},
          revision: '1',
        },
      };
      for (const [operation, input] of Object.entries(inputs)) {
        const refused = runBranchOperation(state, operation, input);
        expect(refused.answer).toEqual({ ok: false, error: expect.stringContaining('path') });
        expect(refused.state).toBe(state);
      }
    },
  );

  it('refuses a change that climbs out of a new target folder into .git', () => {
    const pwn = {
      commands: [
        { type: 'ChangeSettings', at: at(0), target: 'evil', path: '.github' },
        {
          type: 'AdmitChanges',
          at: at(0),
          target: 'evil',
          author: { name: 'mallory' },
          attribution: 'watch',
          changes: [{ path: '.github/../.git/config', operation: 'upsert', bytes: 1 }],
        },
      ],
    };
    expect(runBranchOperation(undefined, 'apply', pwn).answer).toMatchObject({ ok: false });
  });

  it('answers an unknown operation with ok: false', () => {
    expect(runBranchOperation(undefined, 'launch', {}).answer).toEqual({
      ok: false,
      error: 'unknown branch operation "launch"',
    });
  });

  it('plans the publication of a window once its idle timeout has passed', () => {
    const { state } = runBranchOperation(undefined, 'apply', admit(0, 'clusters/prod/a.yaml'));
    const early = runBranchOperation(state, 'plan', { at: at(1) }).answer;
    expect(early).toMatchObject({ ok: true, plan: { effects: [], nextDeadline: at(5) } });
    const due = runBranchOperation(state, 'plan', { at: at(6) }).answer;
    expect(due.ok && due.plan?.effects.map((effect) => effect.type)).toEqual(['publish']);
  });

  it("answers a withdrawal with the branch's own decision", () => {
    const { state } = runBranchOperation(undefined, 'withdraw', {
      command: { type: 'WithdrawSave', at: at(0), saveId: 'never-registered' },
      saveId: 'never-registered',
    });
    const { answer } = runBranchOperation(state, 'withdraw', {
      command: { type: 'WithdrawSave', at: at(1), saveId: 'never-registered' },
      saveId: 'never-registered',
    });
    expect(answer).toEqual({ ok: true, withdraw: { outcome: 'Withdrawn' } });
  });
});

describe('a snapshot in parts', () => {
  const part = (second: number, index: number) => ({
    at: at(second),
    snapshotId: 'snap-1',
    target: 'prod',
    payloadRef: `sha256:${String(index).repeat(64)}`,
    bytes: 100,
    objects: 2,
  });
  const complete = (second: number) => ({
    at: at(second),
    snapshotId: 'snap-1',
    target: 'prod',
    settings: settings(second),
    scope: { group: 'apps', resource: 'deployments' },
    revision: '42',
  });

  it('is applied only when completed, with every part for the publish activity', () => {
    let { state } = runBranchOperation(undefined, 'snapshot-part', part(0, 1));
    state = runBranchOperation(state, 'snapshot-part', part(1, 2)).state;
    expect(state.branch.pending).toEqual([]);
    state = runBranchOperation(state, 'snapshot-complete', complete(2)).state;
    const plan = runBranchOperation(state, 'plan', { at: at(30) });
    const planned = plan.answer.ok
      ? plan.answer.plan?.effects.find((effect) => effect.type === 'publish')
      : undefined;
    // The plan names the attempt only; the activity reads its writes and parts from the entity.
    expect(planned).toEqual({ type: 'publish', attempt: expect.any(String), writes: 1 });
    const inFlight =
      planned?.type === 'publish' ? publicationInFlight(plan.state, planned.attempt) : undefined;
    expect(inFlight?.snapshotParts).toEqual({
      [snapshotRef(snapshotKey('prod', 'snap-1'))]: [`sha256:${'1'.repeat(64)}`, `sha256:${'2'.repeat(64)}`],
    });
    expect(inFlight?.effect.writes[0]?.snapshot).toMatchObject({ bytes: 200, objects: 4 });
    expect(publicationInFlight(plan.state, 'not-an-attempt')).toBeUndefined();
  });

  it('ignores a part delivered twice and a completion delivered twice', () => {
    let { state } = runBranchOperation(undefined, 'snapshot-part', part(0, 1));
    state = runBranchOperation(state, 'snapshot-part', part(0, 1)).state;
    state = runBranchOperation(state, 'snapshot-complete', complete(1)).state;
    state = runBranchOperation(state, 'snapshot-complete', complete(2)).state;
    expect(state.branch.pending).toHaveLength(1);
    expect(state.snapshots[snapshotKey('prod', 'snap-1')]?.parts).toHaveLength(1);
  });

  it('forgets an incomplete snapshot after an hour, so it never applies', () => {
    let { state } = runBranchOperation(undefined, 'snapshot-part', part(0, 1));
    state = runBranchOperation(state, 'plan', {
      at: new Date(Date.parse(at(0)) + 61 * 60_000).toISOString(),
    }).state;
    expect(state.snapshots).toEqual({});
    state = runBranchOperation(state, 'snapshot-complete', complete(3)).state;
    expect(state.branch.pending).toEqual([]);
  });
});
