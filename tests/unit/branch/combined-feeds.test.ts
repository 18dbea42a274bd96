// A target recorded by the forwarder (watch events: no user) and by an Event Hubs feed (the audit
// log, seconds to minutes later, naming the user), matched by object uid and resourceVersion.
// The audit event's responseObject carries both (metadata.uid, metadata.resourceVersion; a delete
// answered by a Status: details.uid), as the watch object does: kube-apiserver's audit backend logs
// the response object it sent (staging/src/k8s.io/apiserver/pkg/audit/request.go, LogResponseObject),
// and a delete answers with the removed object or a Status whose details name its uid
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go).
import {
  type AdmittedChange,
  type Author,
  type BranchCommand,
  heldChangesView,
  pendingPaths,
  pendingWrites,
  usedBudgetBytes,
} from '../../../shared/branch';
import { alice, at, Branch, bob, ofType, tick } from './scenario';

const committer: Author = { name: 'kubescribe', email: 'kubescribe@example.com' };
const WAIT_S = 120;
const UID = '6c1e0a2f-0000-4000-8000-00000000c0de';
const PATH = 'prod/shop/configmaps/settings.yaml';

function settings(seconds: number, attributionWaitMs = WAIT_S * 1000): BranchCommand {
  return {
    type: 'ChangeSettings',
    at: at(seconds),
    target: 'prod',
    window: { idleTimeoutMs: 5_000, maxDurationMs: 60_000 },
    attributionWaitMs,
  };
}

interface Seen {
  rv?: string;
  operation?: 'upsert' | 'delete';
  uid?: string;
  bytes?: number;
}

function change({ rv, operation = 'upsert', uid = UID, bytes = 10 }: Seen): AdmittedChange {
  return {
    path: PATH,
    operation,
    bytes: operation === 'delete' ? 0 : bytes,
    ...(operation === 'delete' ? {} : { payloadRef: `sha256:${rv}` }),
    ...(rv === undefined ? {} : { resourceVersion: rv }),
    uid,
  };
}

/** The forwarder's watch event: no user, so the configured committer. */
function forwarded(seconds: number, seen: Seen): BranchCommand {
  return {
    type: 'AdmitChanges',
    at: at(seconds),
    target: 'prod',
    author: committer,
    attribution: 'configured',
    changes: [change(seen)],
  };
}

/** The audit record of the same request, by its user. */
function audited(seconds: number, seen: Seen, author: Author = alice): BranchCommand {
  return {
    type: 'AdmitChanges',
    at: at(seconds),
    target: 'prod',
    author,
    attribution: 'audit',
    changes: [change(seen)],
  };
}

/** Every pending write as who wrote what: `author|attribution|operation:bytes`. */
function writes(branch: Branch): string[] {
  return pendingWrites(branch.state).map(
    (write) =>
      `${write.author.name}|${write.attribution}|${(write.changes ?? [])
        .map((one) => `${one.operation}:${one.bytes}`)
        .join(',')}`,
  );
}

describe('a target fed by the forwarder and an Event Hubs feed', () => {
  it('holds a change with no author, and its audit record within the wait claims it: one write, by the audit user', () => {
    const branch = new Branch().run(settings(0), forwarded(1, { rv: '10', bytes: 11 }));
    expect(branch.state.window).toBeNull();
    expect(ofType(branch.last, 'DeadlineScheduled')).toEqual([
      expect.objectContaining({ purpose: 'attribution-wait', dueAt: at(1 + WAIT_S) }),
    ]);
    branch.run(audited(40, { rv: '10', bytes: 11 }));
    expect(ofType(branch.last, 'HeldChangeClaimed')).toEqual([
      expect.objectContaining({ target: 'prod', path: PATH, by: alice }),
    ]);
    branch.run(tick(600));
    expect(writes(branch)).toEqual(['Alice|audit|upsert:11']);
    expect(branch.state.attribution?.held).toEqual([]);
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('commits a held change unattributed once the wait has passed, and a late audit record makes nothing more', () => {
    const branch = new Branch().run(settings(0), forwarded(1, { rv: '10', bytes: 11 }), tick(1 + WAIT_S - 1));
    expect(branch.state.window).toBeNull();
    // the attribution-wait deadline: the driver's timer plans at this instant
    branch.run(tick(1 + WAIT_S));
    expect(ofType(branch.last, 'HeldChangesReleased')).toHaveLength(1);
    expect(branch.state.window?.author).toEqual(committer);
    branch.run(tick(600));
    expect(writes(branch)).toEqual(['kubescribe|configured|upsert:11']);

    branch.answer(601).run(audited(700, { rv: '10', bytes: 11 }), tick(900));
    expect(ofType(branch.history, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({ reason: 'same-resource-version', uid: UID, resourceVersion: '10' }),
    ]);
    expect(writes(branch)).toEqual([]);
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('records an audit record that arrives first, and the forwarder’s event of the same change makes nothing', () => {
    const branch = new Branch().run(
      settings(0),
      audited(1, { rv: '10', bytes: 11 }),
      forwarded(3, { rv: '10', bytes: 11 }),
    );
    expect(ofType(branch.last, 'ChangeHeld')).toEqual([]);
    expect(ofType(branch.last, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({ reason: 'same-resource-version' }),
    ]);
    branch.run(tick(600));
    expect(writes(branch)).toEqual(['Alice|audit|upsert:11']);
  });

  it('claims nothing with another resourceVersion: a newer audit change wins, the older held one makes nothing', () => {
    const branch = new Branch().run(
      settings(0),
      forwarded(1, { rv: '10', bytes: 10 }),
      audited(30, { rv: '11', bytes: 11 }),
    );
    expect(ofType(branch.last, 'HeldChangeClaimed')).toEqual([]);
    expect(branch.state.attribution?.held).toHaveLength(1);
    branch.run(tick(600));
    expect(ofType(branch.history, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({
        reason: 'older-resource-version',
        resourceVersion: '10',
        keptResourceVersion: '11',
      }),
    ]);
    expect(writes(branch)).toEqual(['Alice|audit|upsert:11']);
  });

  it('claims nothing with an older audit resourceVersion: both are committed, in order', () => {
    const branch = new Branch().run(
      settings(0),
      forwarded(1, { rv: '10', bytes: 10 }),
      audited(30, { rv: '9', bytes: 9 }),
      tick(1 + WAIT_S),
      tick(600),
    );
    expect(ofType(branch.history, 'HeldChangeClaimed')).toEqual([]);
    expect(writes(branch)).toEqual(['Alice|audit|upsert:9', 'kubescribe|configured|upsert:10']);
  });

  it("matches a delete by uid (the audit's Status has no resourceVersion), and nothing of the object follows it", () => {
    const branch = new Branch().run(
      settings(0),
      forwarded(1, { rv: '50', operation: 'delete' }),
      audited(20, { operation: 'delete' }, bob),
    );
    expect(ofType(branch.last, 'HeldChangeClaimed')).toHaveLength(1);
    // another partition's older update of the same object, late
    branch.run(audited(25, { rv: '49', bytes: 49 }), forwarded(26, { rv: '49', bytes: 49 }), tick(600));
    expect(ofType(branch.history, 'ChangeAlreadyRecorded').map((fact) => fact.reason)).toEqual([
      'object-deleted',
      'object-deleted',
    ]);
    expect(writes(branch)).toEqual(['Bob|audit|delete:0']);
  });

  it('holds one change of an object and resourceVersion once, and counts held bytes in the budget', () => {
    const branch = new Branch().run(settings(0), forwarded(1, { rv: '10', bytes: 300 }));
    const used = usedBudgetBytes(branch.state);
    expect(used).toBe(300 + branch.state.limits.itemOverheadBytes);
    branch.run(forwarded(2, { rv: '10', bytes: 300 }));
    expect(ofType(branch.last, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({ reason: 'already-held' }),
    ]);
    expect(usedBudgetBytes(branch.state)).toBe(used);
  });

  it('holds nothing on a target without an attribution wait', () => {
    const branch = new Branch().run(settings(0, 0), forwarded(1, { rv: '10', bytes: 11 }));
    expect(ofType(branch.last, 'ChangeHeld')).toEqual([]);
    expect(branch.state.window?.author).toEqual(committer);
  });
});

describe('an older change of an object already published (the partition race)', () => {
  // Two partitions carry the same object; both read the feed memory before either writes it, and
  // the window closes between their admissions: the newer is published before the older arrives.
  it('makes nothing when its resourceVersion is older than the published one', () => {
    const branch = new Branch().run(settings(0, 0), audited(1, { rv: '20', bytes: 20 }), tick(60));
    branch.answer(61);
    expect(branch.state.pending).toEqual([]);
    branch.run(audited(62, { rv: '15', bytes: 15 }, bob), tick(600));
    expect(ofType(branch.last, 'ChangeAlreadyRecorded')).toEqual([]);
    expect(ofType(branch.history, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({ reason: 'older-resource-version', keptResourceVersion: '20' }),
    ]);
    expect(writes(branch)).toEqual([]);
  });

  it('makes nothing when the object’s delete was published first, though a delete carries no resourceVersion', () => {
    const branch = new Branch().run(settings(0, 0), audited(1, { operation: 'delete' }, bob), tick(60));
    branch.answer(61);
    branch.run(audited(62, { rv: '15', bytes: 15 }), tick(600));
    expect(writes(branch)).toEqual([]);
  });

  it('records a new object of the same name (another uid) after the delete', () => {
    const branch = new Branch().run(settings(0, 0), audited(1, { operation: 'delete' }, bob), tick(60));
    branch.answer(61);
    branch.run(audited(62, { rv: '70', bytes: 70, uid: 'another-uid' }), tick(600));
    expect(writes(branch)).toEqual(['Alice|audit|upsert:70']);
  });
});

describe('changes held for attribution, as an operator sees them', () => {
  const OTHER = '6c1e0a2f-0000-4000-8000-0000000000b2';

  it('counts them with their bytes, the oldest, and when the wait releases it; lists each with its release', () => {
    const branch = new Branch().run(
      settings(0),
      forwarded(10, { rv: '10', bytes: 300 }),
      forwarded(40, { rv: '7', bytes: 20, uid: OTHER }),
    );
    expect(heldChangesView(branch.state, 'prod')).toEqual({
      count: 2,
      bytes: 320,
      oldestSince: at(10),
      releasesAt: at(10 + WAIT_S),
    });
    expect(heldChangesView(branch.state, 'staging')).toEqual({
      count: 0,
      bytes: 0,
      oldestSince: null,
      releasesAt: null,
    });
    expect(pendingPaths(branch.state, 'prod')).toEqual([
      { path: PATH, operation: 'upsert', writeId: null, since: at(10), heldUntil: at(10 + WAIT_S) },
      { path: PATH, operation: 'upsert', writeId: null, since: at(40), heldUntil: at(40 + WAIT_S) },
    ]);
    // the first claimed by its audit record: the view moves to the one left
    branch.run(audited(50, { rv: '10', bytes: 300 }));
    expect(heldChangesView(branch.state)).toEqual({
      count: 1,
      bytes: 20,
      oldestSince: at(40),
      releasesAt: at(40 + WAIT_S),
    });
  });
});

describe('an operator discarding the branch’s pending work', () => {
  const discard = (seconds: number): BranchCommand => ({
    type: 'DiscardPendingWrites',
    at: at(seconds),
    reason: 'the repository moved',
  });

  it('drops the held changes with the writes: the wait’s end publishes none of them, nor their late audit record', () => {
    const branch = new Branch().run(settings(0), forwarded(1, { rv: '10', bytes: 300 }), discard(20));
    expect(ofType(branch.last, 'HeldChangesDiscarded')).toEqual([
      expect.objectContaining({ target: 'prod', keys: [`prod/${UID}/10`], reason: 'the repository moved' }),
    ]);
    expect(branch.state.attribution?.held).toEqual([]);
    expect(heldChangesView(branch.state).count).toBe(0);
    expect(usedBudgetBytes(branch.state)).toBe(0);
    expect(branch.state.deadlines).toEqual({});

    branch.run(tick(1 + WAIT_S), audited(1 + WAIT_S + 30, { rv: '10', bytes: 300 }), tick(600));
    expect(ofType(branch.history, 'HeldChangesReleased')).toEqual([]);
    expect(ofType(branch.history, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({ reason: 'same-resource-version', resourceVersion: '10' }),
    ]);
    expect(writes(branch)).toEqual([]);
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('keeps a newer change of a discarded object as its newest: the older feed’s copy of the newer one still makes nothing', () => {
    const branch = new Branch().run(
      settings(0),
      forwarded(1, { rv: '10', bytes: 10 }),
      audited(5, { rv: '11', bytes: 11 }),
      discard(6),
    );
    expect(ofType(branch.last, 'HeldChangesDiscarded')).toHaveLength(1);
    expect(ofType(branch.last, 'ObjectsRecorded')).toEqual([]);
    branch.run(forwarded(7, { rv: '11', bytes: 11 }));
    expect(ofType(branch.last, 'ChangeAlreadyRecorded')).toEqual([
      expect.objectContaining({ reason: 'same-resource-version', keptResourceVersion: '11' }),
    ]);
  });

  it('takes the next change as usual', () => {
    const branch = new Branch().run(settings(0), forwarded(1, { rv: '10', bytes: 10 }), discard(2));
    branch.run(forwarded(3, { rv: '12', bytes: 12 }), audited(4, { rv: '12', bytes: 12 }), tick(600));
    expect(writes(branch)).toEqual(['Alice|audit|upsert:12']);
  });
});
