import { type BranchEntityState, runBranchOperation } from '../../../shared/app/entity/branch-operations';
import { acceptChanges } from '../../../shared/app/http/accept-changes';
import { type BranchHandle, newRequestId } from '../../../shared/app/http/branch-handle';
import type { AppRuntime, ResolvedTarget } from '../../../shared/app/runtime/app-runtime';
import type { BranchCommand } from '../../../shared/branch';
import type { Change } from '../../../shared/resources';

// The smallest message and state limit of the supported backends: the Durable Task Scheduler's 1 MiB.
const LIMIT = 1024 * 1024;
const START = Date.UTC(2026, 0, 1);
const at = (second: number) => new Date(START + second * 1000).toISOString();
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function deleteOf(n: number): Change {
  const name = `cm-${String(n).padStart(6, '0')}`;
  return {
    path: `clusters/prod/team-a/_core/configmaps/${name}.yaml`,
    operation: 'delete',
    identity: { group: '', version: 'v1', resource: 'configmaps', kind: '', namespace: 'team-a', name },
    resourceVersion: String(100_000 + n),
    author: { username: 'system:serviceaccount:kube-system:namespace-controller' },
  };
}

describe('20,000 deletes in one window: every message and the entity state stay under 1 MiB', () => {
  it('measures each signal, each activity input and output, and the state after every operation', async () => {
    const signals: unknown[] = [];
    const settings: BranchCommand = {
      type: 'ChangeSettings',
      at: at(0),
      target: 'prod',
      path: 'clusters/prod',
      prune: 'OnEvent',
    };
    const branch = {
      target: {
        config: { name: 'prod', path: 'clusters/prod' },
        repository: { committer: { name: 'kubescribe', email: 'kubescribe@example.com' } },
      } as unknown as ResolvedTarget,
      checkAdmission: async () => undefined,
      apply: async (_at: string, commands: readonly BranchCommand[]) => {
        signals.push({ requestId: newRequestId('branch'), commands: [settings, ...commands] });
      },
      wake: async () => undefined,
    } as unknown as BranchHandle;
    const runtime = { payloads: { put: async () => 'unused' }, nowMs: () => START } as unknown as AppRuntime;
    // one audit EventList of 20,000 deletes (a namespace deleted): the largest single request
    const changes = Array.from({ length: 20_000 }, (_, n) => deleteOf(n));
    await acceptChanges({ runtime, branch, changes, attribution: 'audit', at: at(0) });

    const sizes = { signal: 0, state: 0, plan: 0, activityInput: 0, activityOutput: 0, windowChanges: 0 };
    let state: unknown;
    const step = (operation: string, input: unknown) => {
      sizes.signal = Math.max(sizes.signal, bytesOf(input));
      const result = runBranchOperation(state, operation, input);
      expect(result.answer).toMatchObject({ ok: true });
      state = result.state;
      sizes.state = Math.max(sizes.state, bytesOf(state));
      return result.answer;
    };
    for (const signal of signals) step('apply', signal);
    const entity = () => state as BranchEntityState;
    sizes.windowChanges = Math.max(
      ...entity().branch.pending.map(
        (write) => (write.ch?.length ?? 0) + (write.runs ?? []).reduce((sum, run) => sum + run[2], 0),
      ),
      entity().branch.window?.paths ?? 0,
    );
    // the driver publishes everything: plan, publish activity, record its result, until nothing is owed
    for (let second = 1; entity().branch.pending.length > 0 || entity().branch.window; second += 61) {
      const answer = step('plan', { at: at(second) });
      sizes.plan = Math.max(sizes.plan, bytesOf(answer));
      const attempt = entity().branch.publication.inFlight;
      if (!attempt) continue;
      const input = { branchKey: 'repo/main', repository: 'repo', branch: 'main', attempt: attempt.attempt };
      sizes.activityInput = Math.max(sizes.activityInput, bytesOf(input));
      const ids = runBranchOperation(state, 'plan', { at: at(second) })
        .state.branch.pending.slice(0, attempt.writes)
        .map((write) => `${new Date(write.at as number).toISOString().replace(/[-:.]/g, '')}-${write.id}`);
      const result = {
        outcome: 'published',
        commits: Object.fromEntries(ids.map((id) => [id, 'f'.repeat(40)])),
        head: 'f'.repeat(40),
      };
      sizes.activityOutput = Math.max(sizes.activityOutput, bytesOf(result));
      step('apply', {
        commands: [{ type: 'RecordPublicationResult', at: at(second + 1), attempt: attempt.attempt, result }],
      });
    }
    // printed for docs/branch-state-machine.md
    console.log(JSON.stringify({ signals: signals.length, ...sizes }));
    // the changes are listed in the request's batch payload: one signal names them as a run
    expect(signals.length).toBe(1);
    expect(sizes.windowChanges).toBe(2_000);
    for (const size of [sizes.signal, sizes.state, sizes.plan, sizes.activityInput, sizes.activityOutput])
      expect(size).toBeLessThan(LIMIT);
    expect(entity().branch.pending).toEqual([]);
  });
});

describe('20,000 changes the branch cannot hold in one request: every signal and the state stay under 1 MiB', () => {
  it('cuts the refusals into signals the entity takes, and keeps only the latest refusals', async () => {
    const signals: { requestId: string; commands: BranchCommand[] }[] = [];
    const branch = {
      target: {
        config: { name: 'prod', path: 'clusters/prod' },
        repository: { committer: { name: 'kubescribe', email: 'kubescribe@example.com' } },
      } as unknown as ResolvedTarget,
      checkAdmission: async () => undefined,
      apply: async (_at: string, commands: readonly BranchCommand[]) => {
        signals.push({ requestId: newRequestId('branch'), commands: [...commands] });
      },
      wake: async () => undefined,
    } as unknown as BranchHandle;
    const runtime = { payloads: { put: async () => 'unused' }, nowMs: () => START } as unknown as AppRuntime;
    // every author past the 512 characters a username may have, every name the longest a DNS subdomain may be
    const changes = Array.from({ length: 20_000 }, (_, n): Change => {
      const change = deleteOf(n);
      const name = `${change.identity.name}-${'x'.repeat(240)}`;
      return { ...change, identity: { ...change.identity, name }, author: { username: 'u'.repeat(4096) } };
    });
    const { recorded, refused } = await acceptChanges({
      runtime,
      branch,
      changes,
      attribution: 'audit',
      at: at(0),
    });
    expect(recorded).toEqual([]);
    expect(refused).toHaveLength(20_000);

    let state: unknown;
    for (const signal of signals) {
      expect(bytesOf(signal)).toBeLessThan(LIMIT);
      const result = runBranchOperation(state, 'apply', signal);
      expect(result.answer).toMatchObject({ ok: true });
      state = result.state;
    }
    const refusals = (state as BranchEntityState).branch.refused;
    expect(refusals?.counts).toEqual({ prod: 20_000 });
    expect(bytesOf(state)).toBeLessThan(LIMIT / 16);
  });
});
