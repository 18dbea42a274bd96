// Git matches the cluster through namespaces, collection deletes and scale, end to end: audit
// EventLists shaped as a kube-apiserver sends them, posted to the app on the embedded host, read
// back from Git. The objectRefs are what the apiserver's RequestInfo makes of each path
// (k8s.io/apiserver pkg/endpoints/request/requestinfo.go: `/api/v1/namespaces/{name}` sets
// `namespace` to the name too; a collection request names no object); deletecollections are hollow
// as real apiservers send them (captures: tests/fixtures/audit/deletecollection-*-hollow.json),
// and the scale is `kubectl scale`'s merge patch on `…/scale` answered with an autoscaling/v1 Scale
// (capture: tests/fixtures/audit/deployment-scale-event.json). The namespace teardown follows the
// namespace controller (k8s.io/kubernetes pkg/controller/namespace/deletion): after the user's
// delete it empties the namespace one deletecollection per resource, then deletes it for good.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { loadFixture } from '../unit/resources/load-fixture';

const ALICE = { username: 'alice@example.com', groups: ['system:authenticated'] };
const BOB = { username: 'bob@example.com', groups: ['system:authenticated'] };
const NAMESPACE_CONTROLLER = {
  username: 'system:serviceaccount:kube-system:namespace-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};

let app: AppHost;
let remote: string;
let rv = 100;
let audit = 0;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-shapes-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { window: { idleTimeout: '2s', maxDuration: '1m' } },
      limits: { pushCooldown: '0s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
});

type User = typeof ALICE;

function eventOf(user: User, verb: string, requestURI: string, objectRef: object, responseObject?: object) {
  audit += 1;
  return {
    level: 'RequestResponse',
    auditID: `e2e-${audit}`,
    stage: 'ResponseComplete',
    verb,
    requestURI,
    user,
    objectRef,
    responseStatus: { metadata: {}, code: verb === 'create' ? 201 : 200 },
    ...(responseObject ? { responseObject } : {}),
  };
}

function metadata(name: string, namespace: string | undefined, labels?: Record<string, string>) {
  rv += 1;
  return {
    name,
    ...(namespace ? { namespace } : {}),
    uid: `uid-${name}-${namespace ?? ''}`,
    resourceVersion: String(rv),
    ...(labels ? { labels } : {}),
  };
}

const namespaceObject = (name: string, labels: Record<string, string>, deleting = false) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    ...metadata(name, undefined, labels),
    ...(deleting ? { deletionTimestamp: '2026-12-03T10:00:00Z' } : {}),
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: deleting ? 'Terminating' : 'Active' },
});

// POST /api/v1/namespaces: the collection, so objectRef names no namespace (audit fills the name in)
const createNamespace = (user: User, name: string, labels: Record<string, string>) =>
  eventOf(
    user,
    'create',
    '/api/v1/namespaces',
    { resource: 'namespaces', name, apiVersion: 'v1' },
    namespaceObject(name, labels),
  );

const namespaceRef = (name: string) => ({ resource: 'namespaces', namespace: name, name, apiVersion: 'v1' });

const createConfigMap = (user: User, namespace: string, name: string, labels: Record<string, string>) =>
  eventOf(
    user,
    'create',
    `/api/v1/namespaces/${namespace}/configmaps`,
    { resource: 'configmaps', namespace, name, apiVersion: 'v1' },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadata(name, namespace, labels),
      data: { mode: 'fast' },
    },
  );

const createDeployment = (user: User, namespace: string, name: string) =>
  eventOf(
    user,
    'create',
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    { resource: 'deployments', namespace, name, apiGroup: 'apps', apiVersion: 'v1' },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: metadata(name, namespace, { app: name }),
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name, image: 'nginx:1.27' }] },
        },
      },
      status: { replicas: 1 },
    },
  );

/** The captured kubectl scale patch, aimed at another deployment. */
function scaleDeployment(user: User, namespace: string, name: string, replicas: number) {
  const captured = loadFixture('audit/deployment-scale-event.json') as {
    objectRef: object;
    responseObject: { metadata: object; spec: object };
  };
  return {
    ...captured,
    auditID: `e2e-scale-${name}`,
    user,
    requestURI: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}/scale`,
    requestObject: { spec: { replicas } },
    objectRef: { ...captured.objectRef, namespace, name },
    responseObject: {
      ...captured.responseObject,
      metadata: { ...captured.responseObject.metadata, ...metadata(name, namespace) },
      spec: { replicas },
    },
  };
}

/** A hollow deletecollection as the captures show it: no list, the selectors in the requestURI only. */
function deleteCollection(user: User, namespace: string, group: string, resource: string, query = '') {
  const path = group
    ? `/apis/${group}/v1/namespaces/${namespace}/${resource}`
    : `/api/v1/namespaces/${namespace}/${resource}`;
  return eventOf(user, 'deletecollection', `${path}${query}`, {
    resource,
    namespace,
    ...(group ? { apiGroup: group } : {}),
    apiVersion: 'v1',
  });
}

async function post(...items: object[]) {
  const answer = await app.http('POST', '/api/v1/targets/prod/audit', {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    metadata: {},
    items,
  });
  expect(answer.status).toBe(200);
  await app.advance(5000);
  return answer.body;
}

async function files(): Promise<string[]> {
  return (await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n').filter(Boolean);
}

const show = (path: string) => git(remote, 'show', `main:clusters/prod/${path}`);

describe('a namespace, its contents, a scale and collection deletes, as the apiserver sends them', () => {
  it('records a namespace created with contents, as a cluster-scoped file and a folder', async () => {
    const body = await post(
      createNamespace(ALICE, 'shop', { team: 'payments' }),
      createConfigMap(ALICE, 'shop', 'settings', { app: 'web' }),
      createDeployment(ALICE, 'shop', 'web'),
      createNamespace(ALICE, 'tools', { team: 'platform' }),
      createConfigMap(ALICE, 'tools', 'batch-a', { app: 'batch' }),
      createConfigMap(ALICE, 'tools', 'batch-b', { app: 'batch', tier: 'low' }),
      createConfigMap(ALICE, 'tools', 'web-c', { app: 'web' }),
    );
    expect(body).toMatchObject({ accepted: 7, ignored: 0 });
    expect(await files()).toEqual([
      'clusters/prod/_cluster/namespaces/shop.yaml',
      'clusters/prod/_cluster/namespaces/tools.yaml',
      'clusters/prod/shop/apps/deployments/web.yaml',
      'clusters/prod/shop/configmaps/settings.yaml',
      'clusters/prod/tools/configmaps/batch-a.yaml',
      'clusters/prod/tools/configmaps/batch-b.yaml',
      'clusters/prod/tools/configmaps/web-c.yaml',
    ]);
  });

  it("patches the namespace's labels from an event whose objectRef.namespace is its own name", async () => {
    const body = await post(
      eventOf(
        ALICE,
        'patch',
        '/api/v1/namespaces/shop',
        namespaceRef('shop'),
        namespaceObject('shop', { team: 'payments', tier: 'gold' }),
      ),
    );
    expect(body).toMatchObject({ accepted: 1, ignored: 0 });
    expect(await show('_cluster/namespaces/shop.yaml')).toContain('    tier: gold\n');
  });

  it("sets the deployment's spec.replicas from kubectl scale's request, every other byte as recorded", async () => {
    const before = await show('shop/apps/deployments/web.yaml');
    expect(before).toContain('  replicas: 1\n');
    await post(scaleDeployment(BOB, 'shop', 'web', 3));
    const after = await show('shop/apps/deployments/web.yaml');
    expect(after).toBe(before.replace('  replicas: 1\n', '  replicas: 3\n'));
    expect(await git(remote, 'log', '-1', '--format=%an|%s', 'main')).toBe(
      'bob@example.com|[SCALE] apps/v1/deployments shop/web\n',
    );
  });

  it('never writes a partial object: a scale of a deployment no file is held of is a refused write, with its reason', async () => {
    const before = await files();
    await post(scaleDeployment(BOB, 'shop', 'never-recorded', 2));
    expect(await files()).toEqual(before);
    const status = await app.http('GET', '/api/v1/targets/prod');
    expect(status.body.refusedWrites).toMatchObject({
      count: 1,
      recent: [
        {
          target: 'prod',
          cause:
            'the replica count of clusters/prod/shop/apps/deployments/never-recorded.yaml is not recorded: no file of it is held, and a Scale alone is not the object; its next update or a resync records it',
        },
      ],
    });
    expect(status.body.publication).toMatchObject({ pendingWrites: 0 });
  });

  it('removes exactly the objects a label-selected deletecollection matches in another namespace, pending ones included', async () => {
    // batch-d is created in the same batch: unpublished when the collection is deleted, it goes too
    await post(
      createConfigMap(ALICE, 'tools', 'batch-d', { app: 'batch' }),
      deleteCollection(ALICE, 'tools', '', 'configmaps', '?labelSelector=app%3Dbatch'),
    );
    expect((await files()).filter((path) => path.includes('/configmaps/'))).toEqual([
      'clusters/prod/shop/configmaps/settings.yaml',
      'clusters/prod/tools/configmaps/web-c.yaml',
    ]);
    expect(await git(remote, 'log', '-1', '--format=%an|%s', 'main')).toBe(
      'alice@example.com|[DELETECOLLECTION] v1/configmaps tools/* (app=batch)\n',
    );
  });

  it('removes every file of a namespace deleted by a user, authored by that user, not the namespace controller', async () => {
    const head = (await git(remote, 'rev-parse', 'main')).trim();
    const body = await post(
      eventOf(
        BOB,
        'delete',
        '/api/v1/namespaces/shop',
        namespaceRef('shop'),
        namespaceObject('shop', { team: 'payments', tier: 'gold' }, true),
      ),
      // the namespace controller: status, then one hollow deletecollection per resource, finalize, the final delete
      eventOf(
        NAMESPACE_CONTROLLER,
        'update',
        '/api/v1/namespaces/shop/status',
        { ...namespaceRef('shop'), subresource: 'status' },
        namespaceObject('shop', {}, true),
      ),
      deleteCollection(NAMESPACE_CONTROLLER, 'shop', '', 'configmaps'),
      deleteCollection(NAMESPACE_CONTROLLER, 'shop', 'apps', 'deployments'),
      eventOf(
        NAMESPACE_CONTROLLER,
        'update',
        '/api/v1/namespaces/shop/finalize',
        { ...namespaceRef('shop'), subresource: 'finalize' },
        namespaceObject('shop', {}, true),
      ),
      eventOf(NAMESPACE_CONTROLLER, 'delete', '/api/v1/namespaces/shop', namespaceRef('shop'), {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Success',
      }),
    );
    expect(body).toMatchObject({ accepted: 4, ignored: 2 });
    expect((await files()).filter((path) => path.includes('shop'))).toEqual([]);
    expect(await files()).toEqual([
      'clusters/prod/_cluster/namespaces/tools.yaml',
      'clusters/prod/tools/configmaps/web-c.yaml',
    ]);
    // one commit since: bob's; the controller's writes found nothing left to remove
    expect(await git(remote, 'log', '--format=%an|%s', `${head}..main`)).toBe(
      'bob@example.com|[DELETE] v1/namespaces/shop\n',
    );
    await git(remote, 'fsck', '--strict');
  });
});
