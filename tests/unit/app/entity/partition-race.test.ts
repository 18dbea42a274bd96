// The Event Hubs feed's partition race, through the branch entity's operations as the app runs
// them: two partitions carry the same object; both batches read the feed memory before either
// wrote it (shared/app/eventhub/feed-memory.ts is no lock), so both reach the branch, and the
// window closes between the two. The older must not be committed after the newer. Upserts order
// by resourceVersion (etcd revisions); an audited delete carries none (its responseObject is a
// Status naming the uid: tests/fixtures/audit/mixed-batch.yaml [4]), so it is ordered by uid.
import {
  type BranchEntityState,
  publicationInFlight,
  runBranchOperation,
} from '../../../../shared/app/entity/branch-operations';

const START = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const at = (ms: number) => new Date(START + ms).toISOString();
const PATH = 'clusters/prod/shop/configmaps/settings.yaml';
const UID = '0b2c7a51-3a5e-4b53-8f1e-2f7d6c1c9a11';

let requests = 0;
/** One audit batch's signal, as the feed sends it on a target an Event Hubs feed records (uids on). */
function audited(atMs: number, user: string, change: Record<string, unknown>) {
  requests += 1;
  return {
    requestId: `request-${String(requests).padStart(8, '0')}`,
    commands: [
      { type: 'ChangeSettings', at: at(atMs), target: 'prod', path: 'clusters/prod', attributionWaitMs: 0 },
      {
        type: 'AdmitChanges',
        at: at(atMs),
        target: 'prod',
        author: { name: user, username: user },
        attribution: 'audit',
        changes: [{ path: PATH, uid: UID, ...change }],
      },
    ],
  };
}

const upsert = (resourceVersion: string) => ({
  operation: 'upsert',
  bytes: 10,
  payloadRef: `ref-${resourceVersion}`,
  resourceVersion,
});
const removal = { operation: 'delete', bytes: 0 };

/** The entity driven as the driver drives it; every (operation, payload) a publication wrote, in order. */
function branch() {
  let state: unknown;
  const entity = () => state as BranchEntityState;
  const written: string[] = [];
  return {
    written,
    deliver(signal: unknown): void {
      const result = runBranchOperation(state, 'apply', signal);
      expect(result.answer).toEqual({ ok: true });
      state = result.state;
    },
    /** Lets the window close and publishes what is pending, at `nowMs`. */
    publish(nowMs: number): void {
      for (let step = 0; step < 5; step++) {
        const now = nowMs + step * 61 * SECOND;
        state = runBranchOperation(state, 'plan', { at: at(now) }).state;
        const attempt = entity().branch.publication.inFlight?.attempt;
        const inFlight = attempt ? publicationInFlight(entity(), attempt) : undefined;
        if (!attempt || !inFlight) continue;
        for (const write of inFlight.effect.writes)
          for (const change of write.changes ?? [])
            written.push(`${change.operation}:${change.payloadRef ?? ''}`);
        const commits = Object.fromEntries(inFlight.effect.writes.map((write) => [write.id, 'f'.repeat(40)]));
        state = runBranchOperation(state, 'apply', {
          commands: [
            {
              type: 'RecordPublicationResult',
              at: at(now + 1),
              attempt,
              result: { outcome: 'published', commits, head: 'f'.repeat(40) },
            },
          ],
        }).state;
      }
    },
  };
}

it('never commits an older update after the object’s delete, though the delete carries no resourceVersion', () => {
  const b = branch();
  b.deliver(audited(0, 'alice', upsert('10')));
  b.publish(10 * SECOND);
  // partition 1: bob deletes the object; partition 0, behind, still carries carol's earlier update
  b.deliver(audited(20 * SECOND, 'bob', removal));
  b.publish(30 * SECOND);
  b.deliver(audited(31 * SECOND, 'carol', upsert('15')));
  b.publish(40 * SECOND);
  expect(b.written).toEqual(['upsert:ref-10', 'delete:']);
});

// Also held by the entity's published orders (published-orders.ts) for ten minutes; the branch's
// recorded objects hold it by uid beside them.
it('never commits an older resourceVersion after a newer one was published', () => {
  const b = branch();
  b.deliver(audited(0, 'alice', upsert('20')));
  b.publish(10 * SECOND);
  b.deliver(audited(11 * SECOND, 'carol', upsert('15')));
  b.publish(20 * SECOND);
  expect(b.written).toEqual(['upsert:ref-20']);
});
