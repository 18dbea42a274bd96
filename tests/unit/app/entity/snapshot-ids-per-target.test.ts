// A snapshot id is chosen by its sender, per target (docs/api.md, "Snapshots in parts"): two
// targets of one branch using one id keep two snapshots, each applied with its own parts under its
// own folder. Version 3 states (0.3.0) kept parts by the bare id; they are read under their target.
import {
  type BranchEntityState,
  publicationInFlight,
  runBranchOperation,
} from '../../../../shared/app/entity/branch-operations';
import { readStoredState } from '../../../../shared/app/entity/stored-state';

const START = Date.UTC(2026, 0, 1);
const at = (second: number) => new Date(START + second * 1000).toISOString();
const TARGETS = ['prod', 'staging'] as const;
const settings = (second: number) =>
  TARGETS.map((target) => ({ type: 'ChangeSettings', at: at(second), target, path: `clusters/${target}` }));
const ref = (digit: number) => `sha256:${String(digit).repeat(64)}`;

const part = (target: string, second: number, digit: number) => ({
  requestId: `part-${target}-${digit}-xxxx`,
  at: at(second),
  snapshotId: 'resync-1',
  target,
  payloadRef: ref(digit),
  bytes: 100,
  objects: 1,
});
const complete = (target: string, second: number, parts: number) => ({
  requestId: `complete-${target}-xxxx`,
  at: at(second),
  snapshotId: 'resync-1',
  target,
  settings: settings(second),
  scope: { group: '', resource: 'configmaps' },
  revision: '42',
  parts,
});

function run(state: unknown, operation: string, input: unknown): BranchEntityState {
  const result = runBranchOperation(state, operation, input);
  expect(result.answer).toMatchObject({ ok: true });
  return result.state;
}

/**
 * The snapshot writes the branch publishes, attempt after attempt (each recorded as landed): their
 * target, and the parts the publish activity is given for each.
 */
function snapshotWrites(from: BranchEntityState) {
  const published: { target: string; parts: string[] | undefined }[] = [];
  let state = from;
  // A minute apart: past the push cooldown, so each plan starts an attempt.
  for (let second = 100; state.branch.pending.length > 0 && second < 1000; second += 60) {
    state = run(state, 'plan', { at: at(second) });
    const attempt = state.branch.publication.inFlight?.attempt;
    if (attempt === undefined) continue;
    const inFlight = publicationInFlight(state, attempt);
    for (const write of inFlight?.effect.writes ?? [])
      published.push({
        target: write.target,
        parts: inFlight?.snapshotParts[write.snapshot?.payloadRef ?? ''],
      });
    const commits = Object.fromEntries(
      (inFlight?.effect.writes ?? []).map((write) => [write.id, `c-${second}`]),
    );
    const result = { outcome: 'published', commits, head: `head-${second}` };
    state = run(state, 'apply', {
      commands: [{ type: 'RecordPublicationResult', at: at(second), attempt, result }],
    });
  }
  return published;
}

describe('snapshot ids per target', () => {
  it('keeps two targets’ snapshots of one id apart, each with its own parts', () => {
    let state = run(undefined, 'apply', { commands: settings(0) });
    state = run(state, 'snapshot-part', part('prod', 1, 1));
    state = run(state, 'snapshot-part', part('staging', 2, 2));
    state = run(state, 'snapshot-part', part('prod', 3, 3));
    state = run(state, 'snapshot-complete', complete('staging', 4, 1));
    state = run(state, 'snapshot-complete', complete('prod', 5, 2));

    expect(snapshotWrites(state)).toEqual([
      { target: 'staging', parts: [ref(2)] },
      { target: 'prod', parts: [ref(1), ref(3)] },
    ]);
  });

  it('completes, after the upgrade, a snapshot whose parts a version 3 state kept by its bare id', () => {
    // The state 0.3.0 stored with two parts of prod's `resync-1` kept and its completion still to come.
    let v3 = run(undefined, 'apply', { commands: settings(0) });
    v3 = run(v3, 'snapshot-part', part('prod', 1, 1));
    v3 = run(v3, 'snapshot-part', part('prod', 2, 3));
    const [[key, open]] = Object.entries(v3.snapshots) as [[string, BranchEntityState['snapshots'][string]]];
    const stored = { ...v3, branch: { ...v3.branch, version: 3 }, snapshots: { [key.split('/')[1]!]: open } };

    const reading = readStoredState(stored);
    expect(reading).toMatchObject({ ok: true, state: { branch: { version: 4 } } });
    let state = run(stored, 'snapshot-part', part('staging', 3, 2));
    state = run(state, 'snapshot-complete', complete('prod', 4, 2));
    state = run(state, 'snapshot-complete', complete('staging', 5, 1));

    expect(snapshotWrites(state)).toEqual([
      { target: 'prod', parts: [ref(1), ref(3)] },
      { target: 'staging', parts: [ref(2)] },
    ]);
  });

  it('keeps the reference of a version 3 snapshot write waiting to publish', () => {
    let v3 = run(undefined, 'apply', { commands: settings(0) });
    v3 = run(v3, 'snapshot-part', part('prod', 1, 1));
    v3 = run(v3, 'snapshot-complete', complete('prod', 2, 1));
    const [[key, open]] = Object.entries(v3.snapshots) as [[string, BranchEntityState['snapshots'][string]]];
    const bare = key.split('/')[1]!;
    const pending = v3.branch.pending.map((write) => ({
      ...write,
      snapshot: { ...write.snapshot!, payloadRef: `snapshot:${bare}` },
    }));
    const stored = { ...v3, branch: { ...v3.branch, version: 3, pending }, snapshots: { [bare]: open } };

    expect(snapshotWrites(run(stored, 'plan', { at: at(3) }))).toEqual([{ target: 'prod', parts: [ref(1)] }]);
  });
});
