// The branch's memory of the client signals it applied, so that one the engine delivers again is
// dropped. Client signals are delivered at least once: on Azure Storage a control-queue message
// dequeued by a worker that then loses its partition (or commits its batch and dies before deleting
// it) reappears when its visibility timeout ends (Azure/durabletask
// src/DurableTask.AzureStorage/AzureStorageOrchestrationServiceSettings.cs:55,
// `ControlQueueVisibilityTimeout = TimeSpan.FromMinutes(5)`), counted from the last renewal of its
// session's lock (AzureStorageOrchestrationService.cs:1473, `RenewMessageAsync` for every message
// of a session in progress), and a batch that fails is abandoned with a backoff of 2^dequeueCount
// seconds up to 600 (Messaging/TaskHubQueue.cs:249-253). The signals here run through the entity's
// operations as the branch entity runs them, with the ids the HTTP layer gives them.

import { MAX_RANGES } from '../../../../shared/app/entity/applied-sequences';
import {
  type BranchEntityState,
  publicationInFlight,
  runBranchOperation,
} from '../../../../shared/app/entity/branch-operations';
import { requestIdSource, sequencedRequest } from '../../../../shared/app/entity/request-ids';

const START = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const BRANCH = 'repo/main';
const at = (ms: number) => new Date(START + ms).toISOString();
const settings = (ms: number) => ({
  type: 'ChangeSettings',
  at: at(ms),
  target: 'prod',
  path: 'clusters/prod',
});

/** A signal as the HTTP layer sends one: the target's settings, then (for `name`) one change. */
function signal(requestId: string, ms: number, name?: string, resourceVersion = 1) {
  const change = {
    type: 'AdmitChanges',
    at: at(ms),
    target: 'prod',
    author: { name: 'alice', username: 'alice' },
    attribution: 'audit',
    changes: [
      {
        path: `clusters/prod/shop/_core/configmaps/${name}.yaml`,
        operation: 'upsert',
        bytes: 10,
        payloadRef: `ref-${name}-${resourceVersion}`,
        resourceVersion: String(resourceVersion),
      },
    ],
  };
  return { requestId, commands: name === undefined ? [settings(ms)] : [settings(ms), change] };
}

function deliver(state: unknown, input: unknown): BranchEntityState {
  const result = runBranchOperation(state, 'apply', input);
  expect(result.answer).toEqual({ ok: true });
  return result.state;
}

/** Lets the windows due by `ms` close and confirms every publication, as the driver does. */
function publish(state: BranchEntityState, ms: number): BranchEntityState {
  let next = state;
  for (let step = 1; step <= 10; step++) {
    const nowMs = ms + step * MINUTE;
    next = runBranchOperation(next, 'plan', { at: at(nowMs) }).state;
    const attempt = next.branch.publication.inFlight?.attempt;
    const inFlight = attempt ? publicationInFlight(next, attempt) : undefined;
    if (!attempt || !inFlight) {
      if (next.branch.pending.length === 0 && !next.branch.window) return next;
      continue;
    }
    const commits = Object.fromEntries(inFlight.effect.writes.map((write) => [write.id, 'f'.repeat(40)]));
    next = deliver(next, {
      commands: [
        {
          type: 'RecordPublicationResult',
          at: at(nowMs + 1),
          attempt,
          result: { outcome: 'published', commits, head: 'f'.repeat(40) },
        },
      ],
    });
  }
  return next;
}

/** The bytes the request memory takes in the stored state. */
const memoryBytes = (state: BranchEntityState) =>
  JSON.stringify({ requests: state.requests, sequences: state.sequences }).length;

/** A fixed pseudo-random sequence (LCG), so the disorder below is the same at every run. */
function pseudoRandom(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('request ids', () => {
  it('numbers a process’s signals per branch, in a form the entity reads back as sender and sequence', () => {
    const next = requestIdSource('SenderSender');
    const ids = [next('a'), next('b'), next('a'), next('a')];
    expect(ids).toEqual(['SenderSender-1', 'SenderSender-1', 'SenderSender-2', 'SenderSender-3']);
    expect(sequencedRequest(ids[3]!)).toEqual({ sender: 'SenderSender', sequence: 3 });
    // random ids (releases up to 0.3.0) and one with a leading zero (would alias another) are not sequenced
    expect(sequencedRequest('AAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(sequencedRequest('SenderSender-03')).toBeUndefined();
    // every id fits the entity's request-id pattern, so a release that keeps ids one by one takes it
    for (let n = 0; n < 1000; n++) expect(next('c')).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
  });
});

describe('a signal delivered again', () => {
  it('is dropped 30 minutes later, past any published-order memory, while its sender kept sending', () => {
    const next = requestIdSource();
    const first = signal(next(BRANCH), 0, 'a', 7);
    let state = publish(deliver(undefined, first), 0);
    expect(state.branch.pending).toEqual([]);
    // a signal a second to another path, published every five minutes, for 30 minutes
    for (let s = 1; s <= 30 * 60; s++) {
      state = deliver(state, signal(next(BRANCH), s * SECOND, 'noise', 100 + s));
      if (s % 300 === 0) state = publish(state, s * SECOND);
    }
    expect(state.branch.pending).toEqual([]);
    const again = runBranchOperation(state, 'apply', first).state;
    expect(again.branch.window).toBeNull();
    expect(again).toBe(state);
  });

  it('held by the engine comes back minutes later and is applied once, closing its gap', () => {
    const next = requestIdSource();
    const ids = Array.from({ length: 10 }, () => next(BRANCH));
    let state: BranchEntityState | undefined;
    for (const [n, id] of ids.entries()) if (n < 3 || n > 5) state = deliver(state, signal(id, n * SECOND));
    for (let s = 10; s < 5 * 60; s++) state = deliver(state, signal(next(BRANCH), s * SECOND));
    const sender = sequencedRequest(ids[0]!)!.sender;
    expect(state!.sequences?.[sender]).toHaveLength(2);
    const held = signal(ids[4]!, 4 * SECOND, 'held');
    state = deliver(state, held);
    expect(state.branch.window?.bytes).toBe(10);
    expect(runBranchOperation(state, 'apply', held).state).toBe(state);
    state = deliver(deliver(state, signal(ids[3]!, 3 * SECOND)), signal(ids[5]!, 5 * SECOND));
    expect(state.sequences?.[sender]).toEqual([[1, 5 * 60, expect.any(Number)]]);
  });
});

describe('the memory’s size in the branch state', () => {
  // 27 signals a second (one process: numbered in order, sent concurrently so they arrive shuffled
  // within each second), 1% delivered twice at once, 1 in 1,000 never sent (its signal failed), and
  // a partition move every three minutes holding the 20 signals in flight for five minutes.
  it('stays under 2 KB at 27 signals a second past the ten minutes (280 KB before, 16,384 ids)', () => {
    const random = pseudoRandom(30);
    const next = requestIdSource();
    let state: BranchEntityState | undefined;
    const held: { atMs: number; input: ReturnType<typeof signal> }[] = [];
    let largest = 0;
    for (let s = 0; s < 12 * 60; s++) {
      const nowMs = s * SECOND;
      const second = Array.from({ length: 27 }, () => signal(next(BRANCH), nowMs));
      second.sort(() => random() - 0.5);
      const moved = s % 180 === 90;
      for (const [n, input] of second.entries()) {
        if (random() < 0.001) continue;
        if (moved && n < 20) held.push({ atMs: nowMs + 5 * MINUTE, input });
        else state = deliver(state, input);
        if (random() < 0.01) state = deliver(state, input);
      }
      while (held[0] && held[0].atMs <= nowMs) state = deliver(state, held.shift()!.input);
      largest = Math.max(largest, memoryBytes(state!));
    }
    expect(largest).toBeLessThan(2_000);
    expect(state!.requests).toBeUndefined();
  });

  it(`holds at most ${MAX_RANGES} ranges, under 9 KB, when every other signal is lost`, () => {
    // a process that has sent a billion signals to the branch (a year at 30 a second): the
    // numbers at their widest in practice; ids written out in the form request-ids.ts gives them
    const id = (n: number) => `SenderSender-${(1_000_000_000 + n).toString(36)}`;
    let state: BranchEntityState | undefined;
    for (let n = 0; n < 4 * MAX_RANGES; n += 2)
      state = deliver(state, signal(id(n), Math.floor(n / 27) * SECOND));
    const ranges = Object.values(state!.sequences ?? {}).flat();
    expect(ranges).toHaveLength(MAX_RANGES);
    expect(memoryBytes(state!)).toBeLessThan(9_000);
    expect(runBranchOperation(state, 'apply', signal(id(4 * MAX_RANGES - 2), 0)).state).toBe(state);
  });

  it('forgets a stopped sender ten minutes after its last signal (a process restarted every minute)', () => {
    let state: BranchEntityState | undefined;
    for (let minute = 0; minute < 30; minute++) {
      const next = requestIdSource();
      for (let s = 0; s < 60; s++) state = deliver(state, signal(next(BRANCH), minute * MINUTE + s * SECOND));
    }
    expect(Object.keys(state!.sequences ?? {}).length).toBeLessThanOrEqual(11);
  });

  it('empties the memory of random ids an earlier release left, once only numbered ids arrive', () => {
    let state: BranchEntityState | undefined;
    for (let n = 0; n < 500; n++)
      state = deliver(state, signal(`random-${String(n).padStart(9, '0')}`, n * 100));
    expect(state!.requests?.length).toBeGreaterThan(0);
    const next = requestIdSource();
    for (let s = 0; s < 5 * 60; s++) state = deliver(state, signal(next(BRANCH), 50 * SECOND + s * SECOND));
    // one of them delivered again within the span is still dropped
    expect(runBranchOperation(state, 'apply', signal('random-000000499', 49_900)).state).toBe(state);
    for (let s = 5 * 60; s < 11 * 60; s++)
      state = deliver(state, signal(next(BRANCH), 50 * SECOND + s * SECOND));
    expect(state!.requests).toBeUndefined();
  });
});
