// The HTTP layer admits changes only while the branch's durable state has room for them
// (shared/app/http/state-room.ts), estimating what each change adds. These hold the estimate to
// what the entity really stores: changes with the longest names and resource versions, admitted
// through the entity's operation, never add more than estimated, in the window or once it closes.
import { type BranchEntityState, runBranchOperation } from '../../../../shared/app/entity/branch-operations';
import {
  CHANGE_STATE_BYTES,
  changesStateBytes,
  ENTITY_STATE_LIMIT_BYTES,
  RUN_STATE_BYTES,
  STATE_ROOM_BYTES,
  stateHasRoom,
  storedStateBytes,
} from '../../../../shared/app/http/state-room';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const sizeOf = (state: BranchEntityState) => Buffer.byteLength(JSON.stringify(state));

const settings = {
  type: 'ChangeSettings',
  at: at(0),
  target: 'prod',
  path: 'clusters/prod',
  window: { idleTimeoutMs: 5000, maxDurationMs: 60_000 },
  prune: 'OnEvent',
};

/** A change as the HTTP layer admits it, its name and resource version `longest` or short. */
function change(index: number, longest: boolean) {
  const name = longest ? `${index}-`.padEnd(253, 'n') : `cm-${index}`;
  const namespace = longest ? `ns-${index % 7}-`.padEnd(63, 's') : `ns-${index % 7}`;
  return {
    path: `clusters/prod/${namespace}/configmaps/${name}.yaml`,
    operation: 'upsert' as const,
    bytes: 1000,
    payloadRef: `sha256:${index.toString(16).padStart(64, 'f')}#${index}`,
    resourceVersion: longest ? String(index).padStart(64, '9') : String(1000 + index),
    subject: { apiVersion: 'v1', resource: 'configmaps', namespace, name },
  };
}

function admit(state: unknown, changes: ReturnType<typeof change>[], second: number) {
  const ran = runBranchOperation(state, 'apply', {
    commands: [
      settings,
      {
        type: 'AdmitChanges',
        at: at(second),
        target: 'prod',
        author: { name: 'alice', email: 'alice@example.com', username: 'alice' },
        attribution: 'watch',
        changes,
      },
    ],
  });
  expect(ran.answer).toEqual({ ok: true });
  return ran.state;
}

describe.each([
  ['the longest names and resource versions', true],
  ['short names', false],
])('changes with %s', (_, longest) => {
  it('never add more state than the admission estimate, in the window or once it closes', () => {
    let state = runBranchOperation(undefined, 'apply', { commands: [settings] }).state;
    for (let batch = 0; batch < 4; batch++) {
      const changes = Array.from({ length: 400 }, (_, i) => change(batch * 400 + i, longest));
      const before = sizeOf(state);
      state = admit(state, changes, batch + 1);
      const grown = sizeOf(state) - before;
      expect(grown).toBeGreaterThan(0);
      expect(grown).toBeLessThanOrEqual(changesStateBytes(changes.map((c) => c.path)));
    }
    // The window closes (idle) into a pending write, stored no larger.
    const full = sizeOf(state);
    state = runBranchOperation(state, 'plan', { at: at(30) }).state;
    expect(state.branch.window).toBeNull();
    expect(state.branch.pending).toHaveLength(1);
    expect(state.branch.pendingItems).toBe(1600);
    expect(sizeOf(state)).toBeLessThanOrEqual(full);
  });
});

it('weighs a state as stored, and sees no room once the state and what comes would pass the bound', () => {
  let state = runBranchOperation(undefined, 'apply', { commands: [settings] }).state;
  const changes = Array.from({ length: 400 }, (_, i) => change(i, true));
  state = admit(state, changes, 1);
  // as the extension stores it: the state's JSON escaped into SchedulerState's `state` string
  const asStored = { exists: true, state: JSON.stringify(state), sorter: {} };
  expect(storedStateBytes(state)).toBe(Buffer.byteLength(JSON.stringify(asStored)));
  expect(storedStateBytes(state)).toBeGreaterThan(sizeOf(state));
  const room = STATE_ROOM_BYTES - storedStateBytes(state);
  expect(stateHasRoom(state, room)).toBe(true);
  expect(stateHasRoom(state, room + 1)).toBe(false);
  // The room is what the last reading saw; what one second of requests adds past it stays under the limit.
  expect(STATE_ROOM_BYTES + 400 * (300 + CHANGE_STATE_BYTES)).toBeLessThan(ENTITY_STATE_LIMIT_BYTES);
});

it('counts a run of changes kept beside the state as at most RUN_STATE_BYTES as stored, whatever its length', () => {
  let state = runBranchOperation(undefined, 'apply', { commands: [settings] }).state;
  // runs of alternating authors: each closes the window before it, so each adds a window and a write
  const deltas: number[] = [];
  for (let request = 0; request < 50; request++) {
    const before = storedStateBytes(state);
    const user = request % 2 === 0 ? 'alice' : 'bob';
    const ran = runBranchOperation(state, 'apply', {
      commands: [
        settings,
        {
          type: 'AdmitRun',
          at: at(request + 1),
          target: 'prod',
          author: { name: user, email: `${user}@example.com`, username: user },
          attribution: 'watch',
          // the largest numbers a run may carry, and a payload reference as the store names a batch
          run: { ref: `sha256:${'f'.repeat(64)}`, first: 999_999, n: 2_000, bytes: 8 * 1024 * 1024 },
        },
      ],
    });
    expect(ran.answer).toEqual({ ok: true });
    state = ran.state;
    deltas.push(storedStateBytes(state) - before);
  }
  // the first of each author also adds its origin, the target's counts and deadlines, once
  for (const delta of deltas.slice(2)) expect(delta).toBeLessThanOrEqual(RUN_STATE_BYTES);
  expect(state.branch.pending.length).toBeGreaterThan(40);
});
