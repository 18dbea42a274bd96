import {
  type BranchEntityState,
  publicationInFlight,
  runBranchOperation,
  snapshotKey,
  snapshotRef,
} from '../../../../shared/app/entity/branch-operations';
import { MAX_REMEMBERED, rememberRequest, seenRequest } from '../../../../shared/app/entity/recent-requests';
import { pendingWrites, saveStatus } from '../../../../shared/branch';

const START = Date.UTC(2026, 0, 1);
const at = (second: number) => new Date(START + second * 1000).toISOString();
const settings = (second: number) => [
  { type: 'ChangeSettings', at: at(second), target: 'prod', path: 'clusters/prod', prune: 'Always' },
];

function admit(second: number, path: string, requestId?: string, bytes = 10) {
  return {
    ...(requestId ? { requestId } : {}),
    commands: [
      ...settings(second),
      {
        type: 'AdmitChanges',
        at: at(second),
        target: 'prod',
        author: { name: 'alice', username: 'alice' },
        attribution: 'watch',
        changes: [{ path, operation: 'upsert', payloadRef: `sha256:${'a'.repeat(64)}`, bytes }],
      },
    ],
  };
}

function run(state: unknown, operation: string, input: unknown): BranchEntityState {
  const result = runBranchOperation(state, operation, input);
  expect(result.answer).toMatchObject({ ok: true });
  return result.state;
}

describe('client signals delivered more than once', () => {
  it('drops a signal whose request id was applied, and applies a signal without one as before', () => {
    let state = run(undefined, 'apply', admit(0, 'clusters/prod/a.yaml', 'req-aaaaaaaaaaaa', 10));
    state = run(state, 'apply', admit(1, 'clusters/prod/a.yaml', 'req-bbbbbbbbbbbb', 20));
    const again = run(state, 'apply', admit(0, 'clusters/prod/a.yaml', 'req-aaaaaaaaaaaa', 10));
    expect(again).toBe(state);
    expect(state.branch.window?.bytes).toBe(20);
  });

  it('forgets request ids after ten minutes of the entity time, never before', () => {
    let state = run(undefined, 'apply', admit(0, 'clusters/prod/a.yaml', 'req-aaaaaaaaaaaa'));
    state = run(state, 'apply', admit(9 * 60, 'clusters/prod/b.yaml', 'req-bbbbbbbbbbbb'));
    expect(seenRequest(state.requests, 'req-aaaaaaaaaaaa')).toBe(true);
    state = run(state, 'apply', admit(11 * 60, 'clusters/prod/c.yaml', 'req-cccccccccccc'));
    expect(seenRequest(state.requests, 'req-aaaaaaaaaaaa')).toBe(false);
    expect(seenRequest(state.requests, 'req-bbbbbbbbbbbb')).toBe(true);
  });

  it(`remembers at most ${MAX_REMEMBERED} ids, about 17 bytes of state each`, () => {
    let recent = rememberRequest(undefined, 'first-id-0000000', START);
    // 30 signals a second for ten minutes: 18,000 ids
    for (let n = 1; n < 18_000; n++)
      recent = rememberRequest(recent, `id${String(n).padStart(14, '0')}`, START + Math.floor(n / 30) * 1000);
    const count = recent.reduce((sum, bucket) => sum + bucket.ids.split(' ').length, 0);
    expect(count).toBe(MAX_REMEMBERED);
    expect(seenRequest(recent, 'first-id-0000000')).toBe(false);
    expect(seenRequest(recent, `id${String(17_999).padStart(14, '0')}`)).toBe(true);
    const bytes = JSON.stringify(recent).length;
    expect(bytes).toBeLessThan(MAX_REMEMBERED * 17 + 1_000);
  });

  it('reads a state stored before request ids, receipt times and the window change limit were kept', () => {
    const fresh = run(undefined, 'apply', admit(0, 'clusters/prod/a.yaml'));
    const window = fresh.branch.window!;
    const { windowChanges: _limit, ...oldLimits } = fresh.branch.limits;
    const old = JSON.parse(
      JSON.stringify({
        branch: {
          ...fresh.branch,
          limits: oldLimits,
          window: {
            ...window,
            buckets: window.buckets.map((group) =>
              group.map((bucket) => bucket.map((entry) => entry.slice(0, 6))),
            ),
          },
        },
        snapshots: {},
      }),
    );
    let state = run(old, 'apply', admit(1, 'clusters/prod/b.yaml', 'req-aaaaaaaaaaaa'));
    state = run(state, 'plan', { at: at(600) });
    expect(
      pendingWrites(state.branch).flatMap((write) => write.changes?.map((change) => change.path)),
    ).toEqual(['clusters/prod/a.yaml', 'clusters/prod/b.yaml']);
    expect(state.requests).toHaveLength(1);
  });
});

describe('saves registered and withdrawn twice, or swapped', () => {
  const register = (second: number) => ({
    requestId: `register-${second}-xxxx`,
    commands: [
      {
        type: 'RegisterSave',
        at: at(second),
        saveId: 's1',
        target: 'prod',
        author: { name: 'alice', username: 'alice' },
        attachTimeoutMs: 60_000,
      },
    ],
  });
  const withdraw = (second: number) => ({
    command: { type: 'WithdrawSave', at: at(second), saveId: 's1', target: 'prod' },
    saveId: 's1',
  });

  it('a registration delivered twice (even as two requests) registers once; a withdrawal twice withdraws once', () => {
    let state = run(undefined, 'apply', register(0));
    state = run(state, 'apply', register(1));
    expect(state.branch.counters.save).toBe(1);
    state = run(state, 'withdraw', withdraw(2));
    const twice = run(state, 'withdraw', withdraw(3));
    expect(saveStatus(twice.branch, 's1', at(3))?.outcome).toBe('Withdrawn');
    const late = run(twice, 'apply', register(4));
    expect(saveStatus(late.branch, 's1', at(4))?.outcome).toBe('Withdrawn');
  });

  it('a withdrawal that arrives before its registration withdraws it, as in order', () => {
    let state = run(undefined, 'withdraw', withdraw(1));
    state = run(state, 'apply', register(0));
    state = run(state, 'apply', register(0));
    expect(saveStatus(state.branch, 's1', at(2))?.phase ?? 'unknown').not.toBe('WaitingForWindow');
    expect(state.branch.openSaves).toBe(0);
  });
});

describe('snapshot parts and completion in any order', () => {
  const part = (second: number, index: number) => ({
    requestId: `part-${index}-${second}-xxxx`,
    at: at(second),
    snapshotId: 'snap-1',
    target: 'prod',
    payloadRef: `sha256:${String(index).repeat(64)}`,
    bytes: 100,
    objects: 2,
  });
  const complete = (second: number, parts?: number) => ({
    requestId: `complete-${second}-xxxx`,
    at: at(second),
    snapshotId: 'snap-1',
    target: 'prod',
    settings: settings(second),
    scope: { resource: 'deployments' },
    revision: '42',
    ...(parts === undefined ? {} : { parts }),
  });
  const partsOf = (state: BranchEntityState) => {
    const plan = runBranchOperation(state, 'plan', { at: at(100) });
    const attempt = plan.state.branch.publication.inFlight?.attempt ?? '';
    return publicationInFlight(plan.state, attempt)?.snapshotParts;
  };
  const ref = (index: number) => `sha256:${String(index).repeat(64)}`;

  it('a completion that names its parts waits for every one, even if it arrives first', () => {
    let state = run(undefined, 'snapshot-complete', complete(3, 2));
    expect(state.branch.pending).toEqual([]);
    state = run(state, 'snapshot-part', part(1, 1));
    expect(state.branch.pending).toEqual([]);
    state = run(state, 'snapshot-part', part(2, 2));
    expect(state.branch.pending).toHaveLength(1);
    expect(partsOf(state)).toEqual({ [snapshotRef(snapshotKey('prod', 'snap-1'))]: [ref(1), ref(2)] });
  });

  it('a part after a completion that named no count joins the snapshot while it waits unpublished', () => {
    // another snapshot is in flight, so snap-1 waits for the next attempt
    let state = run(undefined, 'snapshot-part', {
      ...part(0, 9),
      snapshotId: 'snap-0',
      requestId: 'part-snap-0-xxxx',
    });
    state = run(state, 'snapshot-complete', {
      ...complete(0),
      snapshotId: 'snap-0',
      requestId: 'complete-snap-0',
    });
    state = run(state, 'snapshot-part', part(1, 1));
    state = run(state, 'snapshot-complete', complete(3));
    state = run(state, 'snapshot-part', part(2, 2));
    expect(state.branch.pending).toHaveLength(2);
    expect(state.snapshots[snapshotKey('prod', 'snap-1')]?.parts.map((p) => p.ref)).toEqual([ref(1), ref(2)]);
  });

  it('a part after its snapshot left for Git is applied as a snapshot that deletes nothing', () => {
    let state = run(undefined, 'snapshot-part', part(1, 1));
    state = run(state, 'snapshot-complete', complete(3));
    state = run(state, 'plan', { at: at(4) });
    expect(state.branch.publication.inFlight).toBeDefined();
    state = run(state, 'snapshot-part', part(2, 2));
    const late = pendingWrites(state.branch).at(-1);
    expect(late).toMatchObject({
      kind: 'snapshot',
      prune: 'Never',
      snapshot: { payloadRef: snapshotRef(snapshotKey('prod', 'snap-1.late-1')) },
    });
    expect(state.snapshots[snapshotKey('prod', 'snap-1.late-1')]?.parts.map((p) => p.ref)).toEqual([ref(2)]);
  });
});
