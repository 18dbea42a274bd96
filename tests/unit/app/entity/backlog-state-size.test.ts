// The branch entity's state is carried through the durable protocol on every operation (read and
// written back whole: on Azure Storage a state over 60 KB is a blob, and the Durable Task Scheduler
// refuses one over 1 MiB). Here Git stays unreachable while 400-change audit batches arrive, as
// `acceptChanges` stores and signals them, until intake pauses: the state each operation carries
// stays small while the backlog grows, and at the outage budget, and each batch's signal is a
// bounded handful of numbers and references, not a command per change. Counts and bytes only.
//
// The state is weighed as the backend stores it (`storedStateBytes`: the extension's scheduler
// state holds it as an escaped JSON string), without the request-id memory (`requests`), which
// grows with the requests of the last minutes whatever the backlog and is moved beside the state
// separately (shared/app/entity/recent-requests.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../../../shared/api/errors';
import { type BranchEntityState, runBranchOperation } from '../../../../shared/app/entity/branch-operations';
import { acceptChanges } from '../../../../shared/app/http/accept-changes';
import type { BranchGateway } from '../../../../shared/app/http/branch-gateway';
import { branchHandle } from '../../../../shared/app/http/branch-handle';
import { storedStateBytes } from '../../../../shared/app/http/state-room';
import { type AppRuntime, createAppRuntime } from '../../../../shared/app/runtime/app-runtime';
import { loadConfig } from '../../../../shared/config';
import { openPayloadStore } from '../../../../shared/payloads';
import type { Change } from '../../../../shared/resources';

const START = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(START + ms).toISOString();
const BATCH = 400;
const AUTHORS = 7;
const STEADY_BYTES = 16 * 1024;
const BUDGET_BYTES = 64 * 1024;
const SIGNAL_BYTES = 2 * 1024;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ks-backlog-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function runtimeOf(): Promise<AppRuntime> {
  const config = {
    repositories: [{ name: 'state', url: 'https://git.example.com/state.git' }],
    targets: [{ name: 'prod', repository: 'state', branch: 'main', path: 'clusters/prod' }],
    server: { auth: 'disabled' },
  };
  const loaded = await loadConfig({
    env: { KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config), KUBESCRIBE_DATA: join(root, 'data') },
    readFile: (path) => readFile(path, 'utf8'),
  });
  const payloads = await openPayloadStore({ setting: loaded.payloads });
  return createAppRuntime({ loaded, payloads, nowMs: () => START });
}

/** A ConfigMap updated by `user`, as the audit route normalizes one (about 600 bytes of YAML). */
function updated(index: number, user: string): Change {
  const name = `cm-${index % 5000}`;
  const namespace = `team-${index % 20}`;
  return {
    path: `clusters/prod/${namespace}/_core/configmaps/${name}.yaml`,
    operation: 'upsert',
    content: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n  labels:\n    app.kubernetes.io/name: shop\ndata:\n  value: "${String(index).padStart(500, '0')}"\n`,
    identity: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespace, name },
    resourceVersion: String(100_000 + index),
    author: { username: user, groups: ['system:authenticated'] },
  };
}

/** Without the request-id memory, as the backend would store it. */
function weighed(state: BranchEntityState): number {
  const { requests: _ids, ...rest } = state;
  return storedStateBytes(rest as BranchEntityState);
}

describe('a long backlog while Git is unreachable', () => {
  it('keeps each operation’s state small and each batch’s signal bounded, until intake pauses', async () => {
    const runtime = await runtimeOf();
    const target = runtime.targets.get('prod')!;
    let state: BranchEntityState | undefined;
    let paused = false;
    const sizes = { steady: 0, budget: 0, signal: 0, signals: 0 };
    const run = (operation: 'apply' | 'plan', input: unknown) => {
      const ran = runBranchOperation(state, operation, input);
      expect(ran.answer).toMatchObject({ ok: true });
      state = ran.state;
      const bytes = weighed(state);
      if (!state.branch.publication.intakePaused) sizes.steady = Math.max(sizes.steady, bytes);
      sizes.budget = Math.max(sizes.budget, bytes);
      return ran.answer;
    };
    const gateway = {
      read: async () => state,
      readNow: async () => state,
      signal: async (_key: string, operation: string, input: unknown) => {
        expect(operation).toBe('apply');
        sizes.signal = Math.max(sizes.signal, Buffer.byteLength(JSON.stringify(input)));
        sizes.signals += 1;
        run('apply', input);
      },
      ensureDriver: async () => undefined,
    } as unknown as BranchGateway;
    const branch = branchHandle(runtime, gateway, target);

    let accepted = 0;
    let refusedAfterPause = 0;
    let pausedBytes = 0;
    for (let batch = 0; batch < 2_000 && refusedAfterPause < 50; batch++) {
      const nowMs = batch * 1_000;
      const user = `user-${batch % AUTHORS}`;
      const changes = Array.from({ length: BATCH }, (_, i) => updated(batch * BATCH + i, user));
      try {
        await acceptChanges({ runtime, branch, changes, attribution: 'audit', at: at(nowMs) });
        expect(paused).toBe(false);
        accepted += BATCH;
      } catch (error) {
        // once paused, every batch is refused with 429 and changes nothing
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).code).toBe('intake-paused'); // answered 429 with Retry-After
        expect((error as ApiError).retryAfterSeconds).toBeGreaterThan(0);
        paused = true;
        refusedAfterPause += 1;
        // flat: the retry schedule's counters move, the backlog does not
        if (pausedBytes === 0) pausedBytes = weighed(state!);
        expect(weighed(state!)).toBeLessThanOrEqual(pausedBytes + 64);
      }
      // the driver: plans; an attempt in flight fails, Git being unreachable (a transient failure)
      const planned = run('plan', { at: at(nowMs + 500) });
      const attempt = state!.branch.publication.inFlight?.attempt;
      if (planned.ok && attempt) {
        run('apply', {
          commands: [
            {
              type: 'RecordPublicationResult',
              at: at(nowMs + 600),
              attempt,
              result: { outcome: 'transient', cause: { message: 'connect ECONNREFUSED' } },
            },
          ],
        });
      }
    }
    console.log(JSON.stringify({ accepted, ...sizes, pendingWrites: state!.branch.pending.length }));
    expect(paused).toBe(true);
    // the backlog is the budget's: 8 MiB of payloads and per-item charges, thousands of changes
    expect(accepted).toBeGreaterThanOrEqual(4_000);
    expect(state!.branch.pendingItems + (state!.branch.window?.paths ?? 0)).toBe(accepted);
    expect(sizes.steady).toBeLessThanOrEqual(STEADY_BYTES);
    expect(sizes.budget).toBeLessThanOrEqual(BUDGET_BYTES);
    // one signal a batch, of a few hundred bytes: a run per author, not a command per change
    expect(sizes.signals).toBe(accepted / BATCH);
    expect(sizes.signal).toBeLessThanOrEqual(SIGNAL_BYTES);
  });
});
