// A client signal caught in a partition move comes back after the control queue's visibility
// timeout (Azure/durabletask src/DurableTask.AzureStorage/AzureStorageOrchestrationServiceSettings.cs:
// `ControlQueueVisibilityTimeout { get; set; } = TimeSpan.FromMinutes(5)`), taken for the first
// time or again, behind every signal sent since: here past a window's close, a publication of a
// newer change to its path, and more signals than the request-id memory holds (MAX_REMEMBERED).
// The entity operations run as the branch entity runs them; publications are confirmed as the
// driver confirms them. tests/e2e/signals-minutes-late.test.ts runs the same through the app.
import {
  type BranchEntityState,
  publicationInFlight,
  runBranchOperation,
} from '../../../../shared/app/entity/branch-operations';
import { MAX_REMEMBERED, seenRequest } from '../../../../shared/app/entity/recent-requests';

const START = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const at = (ms: number) => new Date(START + ms).toISOString();
const path = (name: string) => `clusters/prod/shop/_core/configmaps/${name}.yaml`;

interface Signal {
  requestId: string;
  commands: unknown[];
}

/** A client signal as the HTTP layer sends it: the target's settings, then one change. */
function signal(id: string, atMs: number, name: string, ref: string, resourceVersion: number): Signal {
  return {
    requestId: `request-${id.padStart(8, '0')}`,
    commands: [
      { type: 'ChangeSettings', at: at(atMs), target: 'prod', path: 'clusters/prod' },
      {
        type: 'AdmitChanges',
        at: at(atMs),
        target: 'prod',
        author: { name: 'alice', username: 'alice' },
        attribution: 'audit',
        changes: [
          {
            path: path(name),
            operation: 'upsert',
            bytes: 10,
            payloadRef: ref,
            resourceVersion: String(resourceVersion),
          },
        ],
      },
    ],
  };
}

/** The branch entity, driven as the app drives it, recording every file each publication writes. */
function branch() {
  let state: unknown;
  const entity = () => state as BranchEntityState;
  /** Every (path, payload) a publication wrote, in order. */
  const written: [string, string][] = [];
  return {
    entity,
    written,
    deliver(s: Signal): void {
      const result = runBranchOperation(state, 'apply', s);
      expect(result.answer).toEqual({ ok: true });
      state = result.state;
    },
    /** Lets the windows close and publishes what is pending, at `nowMs`. */
    publish(nowMs: number): void {
      for (let step = 0; step < 20; step++) {
        const now = nowMs + step * 61 * SECOND;
        state = runBranchOperation(state, 'plan', { at: at(now) }).state;
        const attempt = entity().branch.publication.inFlight?.attempt;
        const inFlight = attempt ? publicationInFlight(entity(), attempt) : undefined;
        if (!attempt || !inFlight) {
          if (entity().branch.pending.length === 0 && !entity().branch.window) return;
          continue;
        }
        for (const write of inFlight.effect.writes)
          for (const change of write.changes ?? []) written.push([change.path, change.payloadRef ?? '']);
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

const writesOf = (written: [string, string][], name: string) =>
  written.filter(([p]) => p === path(name)).map(([, ref]) => ref);

it('applies a signal minutes late once and never over a newer published change, past the request-id memory', () => {
  const b = branch();
  // x: v1 taken at once and published, then v2 published; v1 comes back (a duplicate) minutes later.
  const x1 = signal('x1', 0, 'x', 'ref-x1', 100);
  b.deliver(x1);
  // y: v1 held by the partition move (never taken), v2 sent and published meanwhile.
  const y1 = signal('y1', 1 * SECOND, 'y', 'ref-y1', 101);
  // z: held, and no newer change: it must be published when it comes back, once.
  const z1 = signal('z1', 2 * SECOND, 'z', 'ref-z1', 102);
  b.publish(10 * SECOND);
  b.deliver(signal('x2', 20 * SECOND, 'x', 'ref-x2', 200));
  b.deliver(signal('y2', 21 * SECOND, 'y', 'ref-y2', 201));
  b.publish(30 * SECOND);

  // More signals than the request-id memory holds, within the visibility timeout.
  const noise = MAX_REMEMBERED + 200;
  for (let i = 0; i < noise; i++) {
    b.deliver(signal(`n${i}`, 40 * SECOND + i * 10, 'noise', `ref-n${i}`, 1_000 + i));
    if (i % 4_000 === 3_999) b.publish(40 * SECOND + i * 10 + 1);
  }
  b.publish(4 * MINUTE);
  expect(seenRequest(b.entity().requests, x1.requestId)).toBe(false); // x1's id is past the memory

  // The visibility timeout ends: x1 again, y1 and z1 for the first time, each twice.
  for (const late of [x1, y1, z1, x1, y1, z1]) b.deliver(late);
  b.publish(6 * MINUTE);

  expect(writesOf(b.written, 'x')).toEqual(['ref-x1', 'ref-x2']);
  expect(writesOf(b.written, 'y')).toEqual(['ref-y2']);
  expect(writesOf(b.written, 'z')).toEqual(['ref-z1']);
  expect(writesOf(b.written, 'noise').at(-1)).toBe(`ref-n${noise - 1}`);
  expect(b.entity().branch.pending).toEqual([]);
});

it('forgets the published orders after the request memory span: the state does not grow without bound', () => {
  const b = branch();
  for (let i = 0; i < 50; i++) b.deliver(signal(`p${i}`, i * SECOND, `p${i}`, `ref-p${i}`, 100 + i));
  b.publish(60 * SECOND);
  expect(JSON.stringify(b.entity().published ?? [])).toContain('"orders"');
  b.deliver(signal('q', 20 * MINUTE, 'q', 'ref-q', 500));
  b.publish(20 * MINUTE + 10 * SECOND);
  const kept = b.entity().published ?? [];
  expect(kept).toHaveLength(1);
  expect(Object.keys(kept[0]!.orders)).toHaveLength(1);
});
