// A save's status goes to the CommitRequest in the cluster it names, with that cluster's
// credentials: only when the cluster's source may write the save's target. A save registered
// without the saves route's check (before it existed, or with auth disabled) must not make
// kubescribe write into another source's cluster. The cluster is the protocol-level fake API
// server (tests/support/fake-kube-api). Only the refusal runs here: a projection that is let through
// loads @kubernetes/client-node, which jest's CommonJS runtime cannot (tests/integration/kube/
// project-save-status.test.ts runs it in a child process; tests/e2e/commit-request-status.test.ts
// shows a bound cluster's status written).
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProjectStatus } from '../../../shared/app/activities/project-status';
import { createAppRuntime } from '../../../shared/app/runtime/app-runtime';
import { loadConfig } from '../../../shared/config';
import { openPayloadStore } from '../../../shared/payloads';
import { kubeconfigFor } from '../../support/fake-kube-api/kubeconfig';
import type { ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';

const COMMIT_REQUESTS: ResourceType = {
  group: 'kubescribe.dev',
  version: 'v1alpha1',
  resource: 'commitrequests',
  kind: 'CommitRequest',
  namespaced: true,
  statusSubresource: true,
};
const KUBE_TOKEN = 'alpha-cluster-token-5e2a';
let api: FakeKubeApi;
let root: string;

beforeAll(async () => {
  api = await startFakeKubeApi({ types: [COMMIT_REQUESTS], bearerToken: KUBE_TOKEN });
  root = mkdtempSync(join(tmpdir(), 'ks-projection-'));
});

afterAll(async () => {
  await api?.close();
  rmSync(root, { recursive: true, force: true });
});

async function runtime() {
  const config = {
    repositories: [{ name: 'state', url: join(root, 'state.git'), createIfMissing: true }],
    targets: [
      { name: 'alpha', repository: 'state', branch: 'main', path: 'alpha' },
      { name: 'beta', repository: 'state', branch: 'main', path: 'beta' },
    ],
    sources: [
      { name: 'alpha', tokenEnv: 'ALPHA_TOKEN', kubeconfigEnv: 'ALPHA_KUBECONFIG', targets: ['alpha'] },
      { name: 'beta', tokenEnv: 'BETA_TOKEN', targets: ['beta'] },
    ],
  };
  const loaded = await loadConfig({
    env: {
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config),
      KUBESCRIBE_DATA: join(root, 'data'),
      ALPHA_TOKEN: 'alpha-token-0123456789',
      BETA_TOKEN: 'beta-token-0123456789',
      ALPHA_KUBECONFIG: kubeconfigFor({ url: api.url, token: KUBE_TOKEN }),
    },
    readFile: (path) => readFile(path, 'utf8'),
  });
  const payloads = await openPayloadStore({ setting: loaded.payloads });
  return createAppRuntime({ loaded, payloads, nowMs: () => Date.now() });
}

function projection(name: string, uid: string, target: string) {
  return {
    branchKey: 'b-0123456789abcdef',
    repository: 'state',
    branch: 'main',
    effect: {
      type: 'project',
      saveId: uid,
      request: { cluster: 'alpha', namespace: 'shop', name, uid },
      status: {
        id: uid,
        target,
        phase: 'Resolved',
        outcome: 'Committed',
        commit: 'c'.repeat(40),
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Committed',
            message: 'committed',
            lastTransitionTime: '2026-12-03T10:00:00Z',
          },
        ],
      },
    },
  };
}

const commitRequest = (name: string) =>
  api.create(COMMIT_REQUESTS, {
    apiVersion: 'kubescribe.dev/v1alpha1',
    kind: 'CommitRequest',
    metadata: { name, namespace: 'shop' },
    spec: { target: 'alpha', message: 'Release notes' },
  }) as { metadata: { uid: string } };

it('writes nothing into cluster alpha for a save of target beta, which alpha’s source may not write', async () => {
  const uid = commitRequest('foreign').metadata.uid;
  const before = api.requests.length;
  expect(await runProjectStatus(await runtime(), projection('foreign', uid, 'beta'))).toEqual({
    saveId: uid,
    settled: true,
  });
  expect(api.requests.slice(before)).toEqual([]);
  expect(api.get(COMMIT_REQUESTS, 'shop', 'foreign')?.status).toBeUndefined();
});
