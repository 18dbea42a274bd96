/**
 * CommitRequest status projection against a PROTOCOL-LEVEL FAKE of the Kubernetes API server
 * (tests/support/fake-kube-api): no API server can run on this machine, so the fake speaks the
 * real REST protocol (paths, verbs, resourceVersion conflicts, Status bodies) over loopback HTTP.
 * The projection runs with its production client, @kubernetes/client-node, in a child process
 * compiled like the app (jest's CommonJS runtime cannot load that ESM-only package).
 */
import type { SaveCondition, SaveStatus } from '../../../shared/kube/save-status';
import { kubeconfigFor } from '../../support/fake-kube-api/kubeconfig';
import type { KubeObject, ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import { statusObjects } from '../../support/fake-kube-api/status-objects';
import { makeLoopbackCertificate } from '../../support/fake-kube-api/tls';
import { type ProjectionProcess, startProjectionProcess } from './support/projection-process';

const COMMIT_REQUESTS: ResourceType = {
  group: 'kubescribe.dev',
  version: 'v1alpha1',
  resource: 'commitrequests',
  kind: 'CommitRequest',
  namespaced: true,
  statusSubresource: true,
};
const TOKEN = 'kube-token-d0n0tl34k-7f3a9c';
const NAMESPACE = 'team-a';
const ITEM_PATH = `/apis/kubescribe.dev/v1alpha1/namespaces/${NAMESPACE}/commitrequests/save-1`;
const STATUS_PATH = `${ITEM_PATH}/status`;
const SHA = '3f786850e387550fdab836ed7e6dc881de23001b';

function conditions(at: string, ready: SaveCondition['status'], reason: string): SaveCondition[] {
  const resolved = ready === 'True';
  return [
    { type: 'Ready', status: ready, reason, message: '', lastTransitionTime: at },
    { type: 'Reconciling', status: resolved ? 'False' : 'True', reason, message: '', lastTransitionTime: at },
    { type: 'Stalled', status: 'False', reason, message: '', lastTransitionTime: at },
    { type: 'Pushed', status: resolved ? 'True' : 'Unknown', reason, message: '', lastTransitionTime: at },
  ];
}

const waitingForWindow: SaveStatus = {
  phase: 'WaitingForWindow',
  conditions: conditions('2026-11-29T10:00:00Z', 'False', 'WaitingForWindow'),
};
const waitingForPush: SaveStatus = {
  phase: 'WaitingForPush',
  message: 'push failed: the remote did not answer',
  conditions: conditions('2026-11-29T10:00:02Z', 'False', 'WaitingForPush'),
};
const committed: SaveStatus = {
  phase: 'Resolved',
  outcome: 'Committed',
  commit: SHA,
  branch: 'main',
  conditions: conditions('2026-11-29T10:05:00Z', 'True', 'Committed'),
};

function commitRequest(name = 'save-1'): KubeObject {
  return {
    apiVersion: 'kubescribe.dev/v1alpha1',
    kind: 'CommitRequest',
    metadata: { name, namespace: NAMESPACE },
    spec: { target: 'prod', message: 'Scale the web tier' },
  };
}

let projection: ProjectionProcess;
let api: FakeKubeApi;

beforeAll(async () => {
  projection = await startProjectionProcess();
});
afterAll(async () => {
  await projection?.stop();
});
beforeEach(async () => {
  api = await startFakeKubeApi({ types: [COMMIT_REQUESTS], bearerToken: TOKEN });
});
afterEach(async () => {
  await api.close();
});

function project(
  uid: string,
  status: SaveStatus,
  extra: { conflictRetries?: number; requestTimeoutMs?: number } = {},
) {
  return projection.project({
    kubeconfig: kubeconfigFor({ url: api.url, token: TOKEN }),
    request: { namespace: NAMESPACE, name: 'save-1', uid },
    status,
    ...extra,
  });
}

const live = () => api.get(COMMIT_REQUESTS, NAMESPACE, 'save-1');
const writes = () => api.requests.filter((r) => r.method !== 'GET');

describe('projecting a save status onto its CommitRequest', () => {
  it('given a CommitRequest, writes the status through the status subresource and leaves the spec alone', async () => {
    const created = api.create(COMMIT_REQUESTS, commitRequest());

    const answer = await project(created.metadata.uid!, waitingForWindow);

    expect(answer).toEqual({
      result: { result: 'Projected', resourceVersion: expect.any(String), attempts: 1 },
    });
    expect(live()?.status).toEqual(waitingForWindow);
    expect(live()?.spec).toEqual(created.spec);
    expect(writes().map((r) => [r.method, r.path])).toEqual([['PUT', STATUS_PATH]]);
    expect(writes()[0]?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('given a save moving forward, shows each later phase and finally the commit of its outcome', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;

    for (const status of [waitingForWindow, waitingForPush, committed]) {
      expect(await project(uid!, status)).toMatchObject({ result: { result: 'Projected' } });
    }
    expect(live()?.status).toMatchObject({ phase: 'Resolved', outcome: 'Committed', commit: SHA });
  });

  it('given the same projection twice, writes once and answers the second as already projected', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;

    await project(uid!, committed);
    const again = await project(uid!, committed);

    expect(again).toEqual({ result: { result: 'AlreadyProjected' } });
    expect(writes()).toHaveLength(1);
  });

  it('given a Resolved outcome on the server, never overwrites it with an earlier phase', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    await project(uid!, committed);

    const late = await project(uid!, waitingForPush);

    expect(late).toEqual({
      result: {
        result: 'Superseded',
        reason: 'resolved-outcome-is-final',
        shown: { phase: 'Resolved', outcome: 'Committed' },
      },
    });
    expect(live()?.status).toEqual(committed);
  });

  it('given another attempt resolves the save between our read and write, the 409 re-read keeps its outcome', async () => {
    const created = api.create(COMMIT_REQUESTS, commitRequest());
    api.injectFault({
      method: 'PUT',
      path: STATUS_PATH,
      times: 1,
      action: {
        runBefore: () => {
          const current = live()!;
          api.store.replace(
            `kubescribe.dev/commitrequests/${NAMESPACE}/save-1`,
            { ...current, status: committed },
            {
              specChanged: false,
            },
          );
        },
      },
    });

    const answer = await project(created.metadata.uid!, waitingForPush);

    expect(answer).toMatchObject({ result: { result: 'Superseded', reason: 'resolved-outcome-is-final' } });
    expect(live()?.status).toEqual(committed);
  });

  it('given a 409 Conflict, re-reads and writes again', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({
      method: 'PUT',
      path: STATUS_PATH,
      times: 1,
      action: {
        respond: {
          status: 409,
          body: statusObjects.conflict({ ...COMMIT_REQUESTS, name: 'save-1' }),
        },
      },
    });

    const answer = await project(uid!, waitingForPush);

    expect(answer).toMatchObject({ result: { result: 'Projected', attempts: 2 } });
    expect(live()?.status).toEqual(waitingForPush);
  });

  it('given conflicts that do not stop, gives up after the bounded retries as transient', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({
      method: 'PUT',
      path: STATUS_PATH,
      times: 100,
      action: {
        respond: { status: 409, body: statusObjects.conflict({ ...COMMIT_REQUESTS, name: 'save-1' }) },
      },
    });

    const answer = await project(uid!, waitingForPush, { conflictRetries: 2 });

    expect(answer).toMatchObject({
      result: {
        result: 'Transient',
        error: { code: 'KubeApiError', data: { kind: 'conflict', statusCode: 409 } },
      },
    });
    expect(writes()).toHaveLength(3);
  });

  it('given a replacement CommitRequest with the same name, never writes it', async () => {
    const original = api.create(COMMIT_REQUESTS, commitRequest());
    api.delete(COMMIT_REQUESTS, NAMESPACE, 'save-1');
    const replacement = api.create(COMMIT_REQUESTS, commitRequest());

    const answer = await project(original.metadata.uid!, committed);

    expect(answer).toEqual({ result: { result: 'Replaced', liveUid: replacement.metadata.uid } });
    expect(live()?.status).toBeUndefined();
    expect(writes()).toEqual([]);
  });

  it('given the CommitRequest is replaced between our read and write, the refused write is not retried onto the replacement', async () => {
    const original = api.create(COMMIT_REQUESTS, commitRequest());
    let replacementUid = '';
    api.injectFault({
      method: 'PUT',
      path: STATUS_PATH,
      times: 1,
      action: {
        runBefore: () => {
          api.delete(COMMIT_REQUESTS, NAMESPACE, 'save-1');
          replacementUid = api.create(COMMIT_REQUESTS, commitRequest()).metadata.uid!;
        },
      },
    });

    const answer = await project(original.metadata.uid!, committed);

    expect(answer).toEqual({ result: { result: 'Replaced', liveUid: replacementUid } });
    expect(live()?.status).toBeUndefined();
  });

  it('given no CommitRequest of that name, reports it gone', async () => {
    expect(await project('0b6c2f1e-uid', committed)).toEqual({ result: { result: 'Gone' } });
  });

  it('given the CommitRequest is deleted between our read and write, reports it gone', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({
      method: 'PUT',
      path: STATUS_PATH,
      times: 1,
      action: { runBefore: () => api.delete(COMMIT_REQUESTS, NAMESPACE, 'save-1') },
    });

    expect(await project(uid!, committed)).toEqual({ result: { result: 'Gone' } });
  });

  it('given the API server fails with a 500, reports a transient failure to retry', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({
      path: STATUS_PATH,
      times: 1,
      action: {
        respond: { status: 500, body: statusObjects.internalError('etcdserver: request timed out') },
      },
    });

    const answer = await project(uid!, committed);

    expect(answer).toMatchObject({
      result: {
        result: 'Transient',
        error: { data: { kind: 'transient', statusCode: 500, reason: 'InternalError' } },
      },
    });
    expect(live()?.status).toBeUndefined();
  });

  it('given nothing listens at the API address, reports a transient failure to retry', async () => {
    await api.close();

    const answer = await project('0b6c2f1e-uid', committed);
    api = await startFakeKubeApi({ types: [COMMIT_REQUESTS], bearerToken: TOKEN });

    expect(answer).toMatchObject({
      result: { result: 'Transient', error: { data: { kind: 'transient', reason: 'ECONNREFUSED' } } },
    });
  });

  it('given the connection drops mid-request, reports a transient failure to retry', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({ method: 'PUT', path: STATUS_PATH, times: 1, action: { dropConnection: true } });

    expect(await project(uid!, committed)).toMatchObject({ result: { result: 'Transient' } });
  });

  it('given an API server that never answers, returns a transient timeout within the request bound', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({ path: STATUS_PATH, times: 1, action: { hang: true } });

    const answer = await project(uid!, committed, { requestTimeoutMs: 200 });

    expect(answer).toMatchObject({ result: { result: 'Transient', error: { data: { reason: 'Timeout' } } } });
  });

  it('given the server refuses (forbidden), reports it refused rather than retrying forever', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({
      path: STATUS_PATH,
      times: 1,
      action: {
        respond: {
          status: 403,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Forbidden',
            message: `commitrequests.kubescribe.dev "save-1" is forbidden: User "system:serviceaccount:kubescribe:kubescribe" cannot update resource "commitrequests/status"`,
            code: 403,
          },
        },
      },
    });

    expect(await project(uid!, committed)).toMatchObject({
      result: {
        result: 'Refused',
        error: { data: { kind: 'refused', statusCode: 403, reason: 'Forbidden' } },
      },
    });
  });

  it('never shows the kubeconfig credentials in a failure, even when the server echoes them', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;
    api.injectFault({
      path: STATUS_PATH,
      times: 1,
      action: {
        respond: {
          status: 500,
          body: statusObjects.internalError(
            `proxy saw token ${TOKEN} in header Authorization: Bearer ${TOKEN}`,
          ),
        },
      },
    });

    const echoed = await project(uid!, committed);
    const wrongToken = await projection.project({
      kubeconfig: kubeconfigFor({ url: api.url, token: 'another-secret-token-4711' }),
      request: { namespace: NAMESPACE, name: 'save-1', uid: uid! },
      status: committed,
    });
    const unreadable = await projection.project({
      kubeconfig: `users: [{ name: x, user: { token: "${TOKEN}" } ]`,
      request: { namespace: NAMESPACE, name: 'save-1', uid: uid! },
      status: committed,
    });

    expect(echoed).toMatchObject({ result: { result: 'Transient' } });
    expect(wrongToken).toMatchObject({ result: { result: 'Refused', error: { data: { statusCode: 401 } } } });
    expect(unreadable).toMatchObject({ thrown: { name: 'KubeconfigInvalid' } });
    for (const answer of [echoed, wrongToken, unreadable]) {
      expect(JSON.stringify(answer)).not.toContain(TOKEN);
      expect(JSON.stringify(answer)).not.toContain('another-secret-token-4711');
    }
  });

  it('refuses an invalid status with a typed error naming the field, writing nothing', async () => {
    const { uid } = api.create(COMMIT_REQUESTS, commitRequest()).metadata;

    const answer = await project(uid!, { ...committed, outcome: undefined });

    expect(answer).toMatchObject({
      thrown: { name: 'InvalidProjection', message: expect.stringContaining('status.outcome') },
    });
    expect(api.requests).toEqual([]);
  });
});

describe('projecting over TLS, as to a real API server', () => {
  let certificate: { key: string; cert: string };
  let tlsApi: FakeKubeApi;

  beforeAll(async () => {
    certificate = await makeLoopbackCertificate();
  });
  beforeEach(async () => {
    tlsApi = await startFakeKubeApi({ types: [COMMIT_REQUESTS], bearerToken: TOKEN, tls: certificate });
  });
  afterEach(async () => {
    await tlsApi.close();
  });

  it('given the cluster CA in the kubeconfig, verifies the server and writes the status', async () => {
    const { uid } = tlsApi.create(COMMIT_REQUESTS, commitRequest()).metadata;

    const answer = await projection.project({
      kubeconfig: kubeconfigFor({ url: tlsApi.url, token: TOKEN, caCert: certificate.cert }),
      request: { namespace: NAMESPACE, name: 'save-1', uid: uid! },
      status: committed,
    });

    expect(answer).toMatchObject({ result: { result: 'Projected' } });
    expect(tlsApi.get(COMMIT_REQUESTS, NAMESPACE, 'save-1')?.status).toEqual(committed);
  });

  it('given a server certificate the kubeconfig does not trust, reports it refused and sends nothing', async () => {
    const { uid } = tlsApi.create(COMMIT_REQUESTS, commitRequest()).metadata;
    const stranger = await makeLoopbackCertificate();

    const answer = await projection.project({
      kubeconfig: kubeconfigFor({ url: tlsApi.url, token: TOKEN, caCert: stranger.cert }),
      request: { namespace: NAMESPACE, name: 'save-1', uid: uid! },
      status: committed,
    });

    expect(answer).toMatchObject({ result: { result: 'Refused', error: { data: { kind: 'refused' } } } });
    expect(tlsApi.requests).toEqual([]);
  });
});
