// The branch entity keeps a reference per snapshot part until its snapshot is published, and its
// state must stay ≤ 1 MB at every point (the Durable Task Scheduler's limit). These feed the most
// parts the API lets a branch keep, at their largest, and weigh the state after every operation.
import {
  BRANCH_SNAPSHOT_PARTS_MAX,
  PART_STATE_BYTES,
  SNAPSHOT_PARTS_MAX,
  SNAPSHOT_RECORD_PARTS,
} from '../../../../shared/api/snapshot-parts';
import {
  type BranchEntityState,
  runBranchOperation,
  snapshotKey,
} from '../../../../shared/app/entity/branch-operations';

// What the kept parts may take at most: a quarter of the 1 MB limit, leaving the rest to the open
// window (at most 2,000 changes of about 200 bytes) and everything else the branch keeps.
const PARTS_STATE_BOUND_BYTES = 256 * 1024;

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const sizeOf = (state: BranchEntityState) => Buffer.byteLength(JSON.stringify(state));

// The largest a part's numbers can be: a 10 MiB body of the smallest objects.
const part = (snapshotId: string, index: number) => ({
  at: at(1),
  snapshotId,
  target: 'prod',
  payloadRef: `sha256:${index.toString(16).padStart(64, '0')}`,
  bytes: 10 * 1024 * 1024,
  objects: 209_715,
});

const complete = (snapshotId: string, parts: number, namespace?: string) => ({
  at: at(2),
  snapshotId,
  target: 'prod',
  settings: [
    {
      type: 'ChangeSettings',
      at: at(2),
      target: 'prod',
      path: 'clusters/prod',
      window: { idleTimeoutMs: 5000, maxDurationMs: 60_000 },
      prune: 'Always',
    },
  ],
  scope: {
    group: 'rbac.authorization.k8s.io',
    resource: 'rolebindings',
    ...(namespace ? { namespace } : {}),
  },
  revision: '12345678901234567890',
  parts,
});

/**
 * Feeds `count` parts of one snapshot, from `first`; answers the state and the largest it was,
 * weighed after every part when `weighEach` (else at the end: feeding parts only grows it).
 */
function feed(state: unknown, snapshotId: string, first: number, count: number, weighEach = false) {
  let next = state as BranchEntityState;
  let largest = 0;
  for (let index = first; index < first + count; index++) {
    const ran = runBranchOperation(next, 'snapshot-part', part(snapshotId, index));
    expect(ran.answer).toEqual({ ok: true });
    next = ran.state;
    if (weighEach) largest = Math.max(largest, sizeOf(next));
  }
  return { state: next, largest: Math.max(largest, sizeOf(next)) };
}

describe('the parts a branch keeps', () => {
  it('cost the computed bytes each in the entity state, so the most a branch keeps fits the bound', () => {
    const one = feed(undefined, 'snap-a', 0, 1).state;
    const two = feed(one, 'snap-a', 1, 1).state;
    const perPart = sizeOf(two) - sizeOf(one);
    expect(perPart).toBe(PART_STATE_BYTES);
    expect(BRANCH_SNAPSHOT_PARTS_MAX * perPart).toBeLessThan(PARTS_STATE_BOUND_BYTES);
  });

  it('stay under the stated bound for a whole snapshot at its limit, completed and waiting to publish', () => {
    const fed = feed(undefined, 'snap-a', 0, SNAPSHOT_PARTS_MAX, true);
    const completed = runBranchOperation(
      fed.state,
      'snapshot-complete',
      complete('snap-a', SNAPSHOT_PARTS_MAX),
    );
    expect(completed.answer).toEqual({ ok: true });
    expect(completed.state.branch.pending).toHaveLength(1);
    expect(completed.state.snapshots[snapshotKey('prod', 'snap-a')]?.parts).toHaveLength(SNAPSHOT_PARTS_MAX);
    expect(Math.max(fed.largest, sizeOf(completed.state))).toBeLessThan(
      SNAPSHOT_PARTS_MAX * PART_STATE_BYTES + 4 * 1024,
    );
    expect(sizeOf(completed.state)).toBeLessThan(PARTS_STATE_BOUND_BYTES);
  });

  it('stay under the stated bound at the branch limit, in snapshots of the most parts', () => {
    let state: unknown;
    let units = 0;
    for (let n = 0; units + SNAPSHOT_RECORD_PARTS + SNAPSHOT_PARTS_MAX <= BRANCH_SNAPSHOT_PARTS_MAX; n++) {
      state = feed(state, `snap-${n}`, n * SNAPSHOT_PARTS_MAX, SNAPSHOT_PARTS_MAX).state;
      units += SNAPSHOT_RECORD_PARTS + SNAPSHOT_PARTS_MAX;
    }
    expect(units).toBeGreaterThan(BRANCH_SNAPSHOT_PARTS_MAX / 2);
    expect(sizeOf(state as BranchEntityState)).toBeLessThan(PARTS_STATE_BOUND_BYTES);
  });

  it('stay under the stated bound at the branch limit, in snapshots of one part completed and waiting to publish', () => {
    // Long names: a 128-character id, a 63-character namespace, a long group and revision. Each
    // such snapshot's own record (its entry and its pending write) weighs what the HTTP layer counts.
    const id = (n: number) => `${n}`.padStart(128, 's');
    const oneMore = (state: unknown, n: number) => {
      const fed = feed(state, id(n), n, 1).state;
      const completed = runBranchOperation(
        fed,
        'snapshot-complete',
        complete(id(n), 1, `n${n}`.padStart(63, 'n')),
      );
      expect(completed.answer).toEqual({ ok: true });
      return completed.state;
    };
    let state = oneMore(undefined, 0);
    const before = sizeOf(state);
    state = oneMore(state, 1);
    expect(sizeOf(state) - before - PART_STATE_BYTES).toBeLessThanOrEqual(
      SNAPSHOT_RECORD_PARTS * PART_STATE_BYTES,
    );

    const snapshots = Math.floor(BRANCH_SNAPSHOT_PARTS_MAX / (1 + SNAPSHOT_RECORD_PARTS));
    for (let n = 2; n < snapshots; n++) state = oneMore(state, n);
    expect(state.branch.pending).toHaveLength(snapshots);
    expect(sizeOf(state)).toBeLessThan(PARTS_STATE_BOUND_BYTES);
  });

  it('are refused by the entity as a completion naming more parts than a snapshot may have', () => {
    const { state } = feed(undefined, 'snap-a', 0, 1);
    const refused = runBranchOperation(
      state,
      'snapshot-complete',
      complete('snap-a', SNAPSHOT_PARTS_MAX + 1),
    );
    expect(refused.answer).toEqual({ ok: false, error: expect.stringContaining('parts') });
    expect(refused.state).toBe(state);
  });
});
