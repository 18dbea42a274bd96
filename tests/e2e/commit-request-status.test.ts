// A CommitRequest end to end: the admission webhook registers the save, the branch commits it, and
// its outcome is written back to the CommitRequest's status subresource. The Kubernetes API server
// is a protocol-level fake (tests/support/fake-kube-api): no real one can run here. The host runs as
// a child process because the status writer loads @kubernetes/client-node (ESM) with a real import().
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBareRepository, git } from '../support/app/app-host';
import { type ChildHost, spawnHost } from '../support/embedded/child-host';
import { kubeconfigFor } from '../support/fake-kube-api/kubeconfig';
import type { ResourceType } from '../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../support/fake-kube-api/server';
import { type GitHubEmulator, startGitHubEmulator } from '../support/forges/github-emulator';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

const COMMIT_REQUESTS: ResourceType = {
  group: 'kubescribe.dev',
  version: 'v1alpha1',
  resource: 'commitrequests',
  kind: 'CommitRequest',
  namespaced: true,
  statusSubresource: true,
};
const KUBE_TOKEN = 'kube-token-for-status-3c1d';
const SOURCE_TOKEN = 'cluster-a-webhook-token-77aa';
const GIT_TOKEN = 'ghp_commitrequest-token-0123456789';

let api: FakeKubeApi;
let host: ChildHost;
let remote: string;
/** The repository of target `staging`, which proposes its changes in pull requests on the GitHub emulator. */
let proposed: ProxiedRemote;
let forge: GitHubEmulator;

beforeAll(async () => {
  api = await startFakeKubeApi({ types: [COMMIT_REQUESTS], bearerToken: KUBE_TOKEN });
  proposed = await startProxiedRemote({ name: 'org/staging.git' });
  forge = await startGitHubEmulator({ token: GIT_TOKEN });
  const dataDir = mkdtempSync(join(tmpdir(), 'ks-commitrequest-'));
  remote = await createBareRepository(join(dataDir, 'state.git'));
  const configFile = join(dataDir, 'kubescribe.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      repositories: [
        { name: 'state', url: remote },
        {
          name: 'proposed',
          url: proposed.url,
          auth: { username: 'x-access-token', tokenEnv: 'GIT_TOKEN' },
          forge: { kind: 'github', apiUrl: forge.url },
        },
      ],
      targets: [
        {
          name: 'staging',
          repository: 'proposed',
          branch: 'main',
          path: '.',
          publish: 'propose',
          window: { idleTimeout: '1s', maxDuration: '10s' },
        },
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: '.',
          window: { idleTimeout: '1s', maxDuration: '10s' },
        },
      ],
      sources: [
        {
          name: 'cluster-a',
          tokenEnv: 'CLUSTER_A_TOKEN',
          kubeconfigEnv: 'CLUSTER_A_KUBECONFIG',
          targets: ['*'],
        },
      ],
      limits: { pushCooldown: '0s', pullRequestPoll: '1s' },
    }),
  );
  host = await spawnHost(join(__dirname, '..', '..', 'functions', 'index.ts'), dataDir, {
    KUBESCRIBE_CONFIG: configFile,
    KUBESCRIBE_DATA: dataDir,
    KUBESCRIBE_GIT_CACHE: join(dataDir, 'cache'),
    CLUSTER_A_TOKEN: SOURCE_TOKEN,
    GIT_TOKEN,
    CLUSTER_A_KUBECONFIG: kubeconfigFor({ url: api.url, token: KUBE_TOKEN }),
  });
});

afterAll(async () => {
  host?.child.kill('SIGTERM');
  await host?.exited;
  await api?.close();
  await forge?.stop();
  await proposed?.stop();
});

function post(path: string, body: unknown) {
  return fetch(`${host.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SOURCE_TOKEN}` },
    body: JSON.stringify(body),
  });
}

function admissionReview(commitRequest: { metadata: { name: string; namespace?: string; uid?: string } }) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'review-4d2f',
      kind: { group: 'kubescribe.dev', version: 'v1alpha1', kind: 'CommitRequest' },
      resource: { group: 'kubescribe.dev', version: 'v1alpha1', resource: 'commitrequests' },
      name: commitRequest.metadata.name,
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: ['developers'] },
      object: commitRequest,
      dryRun: false,
    },
  };
}

describe('a CommitRequest created in the cluster', () => {
  it('gets its own commit, and its status shows Resolved/Committed with that commit', async () => {
    const change = await post('/api/v1/targets/prod/events', {
      events: [
        {
          type: 'MODIFIED',
          resource: 'deployments',
          author: { username: 'alice' },
          object: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'checkout', namespace: 'shop', resourceVersion: '9' },
            spec: { replicas: 6 },
          },
        },
      ],
    });
    expect(change.status).toBe(202);

    const created = api.create(COMMIT_REQUESTS, {
      apiVersion: 'kubescribe.dev/v1alpha1',
      kind: 'CommitRequest',
      metadata: { name: 'sale-scale-up', namespace: 'shop' },
      spec: { target: 'prod', message: 'Raise checkout replicas for the sale' },
    });
    const review = await post(
      '/api/v1/admission',
      admissionReview(created as { metadata: { name: string; uid: string } }),
    );
    expect(review.status).toBe(200);
    expect(await review.json()).toMatchObject({ response: { uid: 'review-4d2f', allowed: true } });

    const deadline = Date.now() + 45_000;
    let status: { outcome?: string; commit?: string; phase?: string } | undefined;
    while (status?.outcome === undefined) {
      if (Date.now() > deadline)
        throw new Error(`no outcome projected; last status ${JSON.stringify(status)}\n${host.stderr()}`);
      await sleep(100);
      status = api.get(COMMIT_REQUESTS, 'shop', 'sale-scale-up')?.status as typeof status;
    }
    const log = await git(remote, 'log', '--format=%H|%an|%s', 'main');
    const own = log.split('\n').find((line) => line.endsWith('|Raise checkout replicas for the sale'));
    expect(own?.split('|')[1]).toBe('alice');
    expect(status).toMatchObject({ phase: 'Resolved', outcome: 'Committed', commit: own?.split('|')[0] });
    const writes = api.requests.filter((request) => request.method === 'PUT');
    expect(writes.every((request) => request.path.endsWith('/status'))).toBe(true);
  });
  it('given the API server fails the status write after the commit landed, projects the same outcome and commit once it heals, with no extra commit', async () => {
    const created = api.create(COMMIT_REQUESTS, {
      apiVersion: 'kubescribe.dev/v1alpha1',
      kind: 'CommitRequest',
      metadata: { name: 'sale-scale-down', namespace: 'shop' },
      spec: { target: 'prod', message: 'Lower checkout replicas after the sale' },
    });
    const statusPath = '/apis/kubescribe.dev/v1alpha1/namespaces/shop/commitrequests/sale-scale-down/status';
    api.injectFault({
      method: 'PUT',
      path: statusPath,
      times: 1,
      action: { respond: { status: 500, body: { kind: 'Status', status: 'Failure', code: 500 } } },
    });
    const change = await post('/api/v1/targets/prod/events', {
      events: [
        {
          type: 'MODIFIED',
          resource: 'deployments',
          author: { username: 'alice' },
          object: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'checkout', namespace: 'shop', resourceVersion: '10' },
            spec: { replicas: 2 },
          },
        },
      ],
    });
    expect(change.status).toBe(202);
    expect(
      (
        await post(
          '/api/v1/admission',
          admissionReview(created as { metadata: { name: string; uid: string } }),
        )
      ).status,
    ).toBe(200);

    // A failed projection is retried after 30 s (PROJECTION_RETRY_MS) by the host's own clock.
    const deadline = Date.now() + 75_000;
    let status: { outcome?: string; commit?: string } | undefined;
    while (status?.outcome === undefined) {
      if (Date.now() > deadline)
        throw new Error(`no outcome projected; last status ${JSON.stringify(status)}\n${host.stderr()}`);
      await sleep(200);
      status = api.get(COMMIT_REQUESTS, 'shop', 'sale-scale-down')?.status as typeof status;
    }
    const log = await git(remote, 'log', '--format=%H|%s', 'main');
    const own = log.split('\n').filter((line) => line.endsWith('|Lower checkout replicas after the sale'));
    expect(own).toHaveLength(1);
    expect(status).toMatchObject({ outcome: 'Committed', commit: own[0]?.split('|')[0] });
    const writes = api.requests.filter((request) => request.method === 'PUT' && request.path === statusPath);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.length).toBeLessThanOrEqual(4);
  }, 120_000);

  it('resolved by a merged pull request, shows the merge commit on the base branch, and the pull request with the branch it proposed from', async () => {
    const change = await post('/api/v1/targets/staging/events', {
      events: [
        {
          type: 'MODIFIED',
          resource: 'deployments',
          author: { username: 'alice' },
          object: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'checkout', namespace: 'shop', resourceVersion: '11' },
            spec: { replicas: 3 },
          },
        },
      ],
    });
    expect(change.status).toBe(202);
    const created = api.create(COMMIT_REQUESTS, {
      apiVersion: 'kubescribe.dev/v1alpha1',
      kind: 'CommitRequest',
      metadata: { name: 'staging-scale', namespace: 'shop' },
      spec: { target: 'staging', message: 'Scale checkout in staging' },
    });
    const review = await post(
      '/api/v1/admission',
      admissionReview(created as { metadata: { name: string; uid: string } }),
    );
    expect(review.status).toBe(200);

    const opened = Date.now() + 45_000;
    while (forge.pulls().length === 0) {
      if (Date.now() > opened) throw new Error(`no pull request opened\n${host.stderr()}`);
      await sleep(100);
    }
    const pull = forge.pulls()[0]!;
    // a person merges it on the host: a merge commit of the proposed branch on main
    const tree = (await git(proposed.remote, 'rev-parse', `${pull.head}^{tree}`)).trim();
    const merge = (
      await git(proposed.remote, 'commit-tree', tree, '-p', 'main', '-p', pull.head, '-m', 'Merge #1')
    ).trim();
    await git(proposed.remote, 'update-ref', 'refs/heads/main', merge);
    forge.merge(pull.number, merge);

    const deadline = Date.now() + 45_000;
    let status: { outcome?: string; conditions?: { type: string; message: string }[] } | undefined;
    while (status?.outcome === undefined) {
      if (Date.now() > deadline)
        throw new Error(`no outcome projected; last status ${JSON.stringify(status)}\n${host.stderr()}`);
      await sleep(100);
      status = api.get(COMMIT_REQUESTS, 'shop', 'staging-scale')?.status as typeof status;
    }
    expect(status).toMatchObject({
      phase: 'Resolved',
      outcome: 'Committed',
      commit: merge,
      branch: 'main',
      pullRequest: {
        number: pull.number,
        url: expect.stringMatching(/\/pull\/1$/),
        branch: 'kubescribe/staging',
      },
    });
    expect(status.conditions?.find((condition) => condition.type === 'Ready')?.message).toContain(
      `pull request #${pull.number}`,
    );
  }, 120_000);
});
