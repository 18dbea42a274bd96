// A request's changes are checked against the bounds the branch holds (`outOfBounds`, the branch's
// own command schemas) before anything is stored. An audit batch is up to 400 events of whatever
// the apiserver's clients did meanwhile (kube-apiserver's webhook backend buffers the events of
// every request and sends up to `defaultBatchMaxSize = 400` at a time:
// staging/src/k8s.io/apiserver/pkg/server/options/audit.go), a handful of users interleaved; a
// change whose author the branch cannot hold is refused on its own, its neighbours by the same
// users recorded. Counts only.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BranchEntityState, runBranchOperation } from '../../../../shared/app/entity/branch-operations';
import { acceptChanges } from '../../../../shared/app/http/accept-changes';
import type { BranchGateway } from '../../../../shared/app/http/branch-gateway';
import { branchHandle } from '../../../../shared/app/http/branch-handle';
import { type AppRuntime, createAppRuntime } from '../../../../shared/app/runtime/app-runtime';
import { FIELD_CHARS } from '../../../../shared/branch';
import { loadConfig } from '../../../../shared/config';
import { openPayloadStore } from '../../../../shared/payloads';
import type { Change } from '../../../../shared/resources';

const START = Date.UTC(2026, 0, 1);

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ks-bounds-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => jest.restoreAllMocks());

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

/** A ConfigMap updated by `username`, as the audit route normalizes one. */
function updated(index: number, username: string): Change {
  const name = `cm-${index}`;
  return {
    path: `clusters/prod/bench/_core/configmaps/${name}.yaml`,
    operation: 'upsert',
    content: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: bench\n`,
    identity: {
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespace: 'bench',
      name,
    },
    resourceVersion: String(index + 1),
    author: { username, groups: ['system:authenticated'] },
  };
}

describe('the bounds of a request’s changes', () => {
  it('refuses the change whose author the branch cannot hold, and records the others of the request', async () => {
    const runtime = await runtimeOf();
    const target = runtime.targets.get('prod')!;
    let state: BranchEntityState | undefined;
    const gateway = {
      read: async () => state,
      readNow: async () => state,
      signal: async (_key: string, operation: string, input: unknown) => {
        const ran = runBranchOperation(state, operation as 'apply', input);
        expect(ran.answer).toMatchObject({ ok: true });
        state = ran.state;
      },
      ensureDriver: async () => undefined,
    } as unknown as BranchGateway;
    const branch = branchHandle(runtime, gateway, target);
    const tooLong = 'u'.repeat(FIELD_CHARS.username + 1);
    // two users interleaved, as an apiserver's batch mixes its clients, and one author out of bounds
    const changes = Array.from({ length: 400 }, (_, i) => updated(i, `user-${i % 2}`));
    changes.splice(200, 0, updated(400, tooLong));

    const { recorded, refused } = await acceptChanges({
      runtime,
      branch,
      changes,
      attribution: 'audit',
      at: new Date(START).toISOString(),
    });

    expect(recorded).toHaveLength(400);
    expect(refused).toEqual([
      expect.objectContaining({ reason: 'value-out-of-bounds', message: expect.stringMatching(/^author\./) }),
    ]);
    expect(state!.branch.pendingItems + (state!.branch.window?.paths ?? 0)).toBe(400);
  });

  it('refuses on its own, before the answer, a change whose path would leave its target’s folder', async () => {
    // a change kept in a run is read back only when it is published: what the publication would
    // refuse (shared/git/check-write-path.ts) is refused here, listed with its reason
    const runtime = await runtimeOf();
    const target = runtime.targets.get('prod')!;
    let state: BranchEntityState | undefined;
    const gateway = {
      read: async () => state,
      readNow: async () => state,
      signal: async (_key: string, operation: string, input: unknown) => {
        state = runBranchOperation(state, operation as 'apply', input).state;
      },
      ensureDriver: async () => undefined,
    } as unknown as BranchGateway;
    const escaping = { ...updated(1, 'user-0'), path: 'clusters/prod/../staging/cm.yaml' };

    const { recorded, refused } = await acceptChanges({
      runtime,
      branch: branchHandle(runtime, gateway, target),
      changes: [updated(0, 'user-0'), escaping],
      attribution: 'audit',
      at: new Date(START).toISOString(),
    });

    expect(recorded).toHaveLength(1);
    expect(refused).toEqual([
      expect.objectContaining({
        reason: 'value-out-of-bounds',
        message: expect.stringContaining('not normalized'),
      }),
    ]);
  });
});
