// Namespaces, collection deletes and subresources as a kube-apiserver sends them. The objectRef of
// each event is what the apiserver's RequestInfo makes of the request's path
// (k8s.io/apiserver pkg/endpoints/request/requestinfo.go): for `/api/v1/namespaces/{name}` and its
// `status`/`finalize` subresources `namespace` is set to the name as well; a deletecollection names
// its collection and no object. The hollow deletecollections and the Scale are real captures.
import { normalizeAuditEvents, normalizeWatchEvents } from '../../../shared/resources';
import { loadFixture } from './load-fixture';

const target = { path: 'clusters/prod' };
const alice = { username: 'alice@example.com', groups: ['system:authenticated'] };

function list(...items: unknown[]) {
  return { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items };
}

function event(fields: Record<string, unknown>) {
  return {
    auditID: 'a1',
    stage: 'ResponseComplete',
    user: alice,
    responseStatus: { code: 200 },
    ...fields,
  };
}

const namespace = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'shop', uid: 'u1', resourceVersion: '10', labels: { team: 'payments' }, ...extra },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
});

describe('namespaces as the apiserver names them', () => {
  it('given a namespace patch whose objectRef.namespace is the name itself when normalized then it is the cluster-scoped file, not a refused list', () => {
    const { changes } = normalizeAuditEvents({
      body: list(
        event({
          verb: 'patch',
          requestURI: '/api/v1/namespaces/shop',
          objectRef: { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1' },
          responseObject: namespace(),
        }),
      ),
      target,
    });
    expect(changes).toEqual([
      expect.objectContaining({ path: 'clusters/prod/_cluster/namespaces/shop.yaml', operation: 'upsert' }),
    ]);
    expect(changes[0]!.content).toContain('team: payments');
  });

  it('given a create (POST to the collection, no namespace in objectRef) when normalized then it is the same file', () => {
    const { changes } = normalizeAuditEvents({
      body: list(
        event({
          verb: 'create',
          requestURI: '/api/v1/namespaces',
          objectRef: { resource: 'namespaces', name: 'shop', apiVersion: 'v1' },
          responseObject: namespace(),
        }),
      ),
      target,
    });
    expect(changes.map(({ path, created }) => [path, created])).toEqual([
      ['clusters/prod/_cluster/namespaces/shop.yaml', true],
    ]);
  });

  it("given a user's delete (answered with the Terminating Namespace) and the controller's final delete (answered with a Status) when normalized then both remove the namespace with its folder", () => {
    const { changes } = normalizeAuditEvents({
      body: list(
        event({
          verb: 'delete',
          requestURI: '/api/v1/namespaces/shop',
          objectRef: { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1' },
          responseObject: namespace({ deletionTimestamp: '2026-12-01T10:00:00Z' }),
        }),
        event({
          verb: 'delete',
          requestURI: '/api/v1/namespaces/shop',
          user: { username: 'system:serviceaccount:kube-system:namespace-controller' },
          objectRef: { resource: 'namespaces', namespace: 'shop', name: 'shop', apiVersion: 'v1' },
          responseObject: { kind: 'Status', apiVersion: 'v1', status: 'Success' },
        }),
      ),
      target,
    });
    expect(changes.map(({ path, operation, author }) => [path, operation, author?.username])).toEqual([
      ['clusters/prod/_cluster/namespaces/shop.yaml', 'delete-namespace', 'alice@example.com'],
      [
        'clusters/prod/_cluster/namespaces/shop.yaml',
        'delete-namespace',
        'system:serviceaccount:kube-system:namespace-controller',
      ],
    ]);
  });

  it('given the namespace controller finalizing and updating status when normalized then each is ignored with the reason docs/payloads.md gives', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: list(
        ...['finalize', 'status'].map((subresource) =>
          event({
            verb: 'update',
            requestURI: `/api/v1/namespaces/shop/${subresource}`,
            objectRef: {
              resource: 'namespaces',
              namespace: 'shop',
              name: 'shop',
              apiVersion: 'v1',
              subresource,
            },
            responseObject: namespace({ deletionTimestamp: '2026-12-01T10:00:00Z' }),
          }),
        ),
      ),
      target,
    });
    expect(changes).toEqual([]);
    expect(ignored.map(({ reason, message }) => [reason, message])).toEqual([
      [
        'subresource',
        expect.stringMatching(/^subresource finalize is not recorded: only the namespace controller/),
      ],
      ['subresource', 'subresource status is not recorded: `status` is stripped from every recorded file'],
    ]);
  });
});

describe('deletecollection', () => {
  it('given a hollow deletecollection (a capture: no list, whatever the level) when normalized then it deletes its whole collection, evaluated at publication', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/deletecollection-hollow.json'),
      target,
    });
    expect(ignored).toEqual([]);
    expect(changes).toEqual([
      expect.objectContaining({
        path: 'clusters/prod/example-raw/wardle.example.com/flunders',
        operation: 'delete-collection',
        author: expect.objectContaining({ username: 'system:admin' }),
      }),
    ]);
    expect(JSON.parse(changes[0]!.content!)).toEqual({
      version: 1,
      kind: 'collection-delete',
      namespace: 'example-raw',
      group: 'wardle.example.com',
      resource: 'flunders',
      selector: { labels: [], fields: [] },
    });
  });

  it("given the namespace controller's hollow deletecollection (a capture of a namespace teardown) when normalized then it is the controller's collection delete", () => {
    const { changes } = normalizeAuditEvents({
      body: loadFixture('audit/deletecollection-teardown-hollow.json'),
      target,
    });
    expect(changes.map(({ path, operation, author }) => [path, operation, author?.username])).toEqual([
      [
        'clusters/prod/example-teardown/wardle.example.com/flunders',
        'delete-collection',
        'system:serviceaccount:kube-system:namespace-controller',
      ],
    ]);
  });

  it('given a label- and field-selected deletecollection (kubectl delete -l, its requestURI) when normalized then the selectors travel with it', () => {
    const { changes } = normalizeAuditEvents({
      body: list(
        event({
          verb: 'deletecollection',
          requestURI:
            '/api/v1/namespaces/shop/configmaps?labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29%2C%21legacy&fieldSelector=metadata.name%21%3Dkeep',
          objectRef: { resource: 'configmaps', namespace: 'shop', apiVersion: 'v1' },
        }),
      ),
      target,
    });
    expect(changes).toEqual([
      expect.objectContaining({
        path: 'clusters/prod/shop/configmaps',
        operation: 'delete-collection',
        selector: 'app=web,tier in (a,b),!legacy, metadata.name!=keep',
      }),
    ]);
    expect(JSON.parse(changes[0]!.content!).selector).toEqual({
      labels: [
        { key: 'app', operator: 'in', values: ['web'] },
        { key: 'tier', operator: 'in', values: ['a', 'b'] },
        { key: 'legacy', operator: '!', values: [] },
      ],
      fields: [{ field: 'metadata.name', operator: '!=', value: 'keep' }],
    });
  });

  it.each([
    [
      'labelSelector=kustomize.toolkit.fluxcd.io%2Fname%3Dapps',
      /label kustomize.toolkit.fluxcd.io\/name is stripped/,
    ],
    ['fieldSelector=status.phase%3DFailed', /field status.phase is not recorded/],
  ])(
    'given a selector the held files cannot answer (%s) when normalized then it is not recorded, with its reason and the resync that repairs it',
    (query, why) => {
      const { changes, ignored } = normalizeAuditEvents({
        body: list(
          event({
            verb: 'deletecollection',
            requestURI: `/api/v1/namespaces/shop/pods?${query}`,
            objectRef: { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
          }),
        ),
        target,
      });
      expect(changes).toEqual([]);
      expect(ignored).toEqual([
        expect.objectContaining({
          reason: 'selector-not-evaluable',
          message: expect.stringMatching(why),
          identity: expect.objectContaining({ resource: 'pods', namespace: 'shop' }),
        }),
      ]);
      expect(ignored[0]!.message).toContain('a snapshot of pods in namespace shop makes the folder match');
    },
  );

  it('given a cluster-scoped collection when normalized then it applies to the _cluster folder', () => {
    const { changes } = normalizeAuditEvents({
      body: list(
        event({
          verb: 'deletecollection',
          requestURI: '/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector=team%3Dshop',
          objectRef: { resource: 'clusterroles', apiGroup: 'rbac.authorization.k8s.io', apiVersion: 'v1' },
        }),
      ),
      target,
    });
    expect(changes.map(({ path }) => path)).toEqual([
      'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles',
    ]);
  });
});

describe('scale', () => {
  const scaleEvent = loadFixture('audit/deployment-scale-event.json') as Record<string, unknown>;

  it('given the captured kubectl scale patch when normalized then it sets replicas 3 in the deployment file', () => {
    const { changes } = normalizeAuditEvents({ body: list(scaleEvent), target });
    expect(changes).toEqual([
      expect.objectContaining({
        path: 'clusters/prod/scale-audit-capture/apps/deployments/scale-audit-target.yaml',
        operation: 'set-replicas',
        content: JSON.stringify({ version: 1, kind: 'replicas', replicas: 3 }),
        resourceVersion: '6977',
      }),
    ]);
  });

  it('given a scale to zero (ScaleSpec.replicas is omitempty, so the Scale carries none) when normalized then it sets replicas 0', () => {
    const response = { ...(scaleEvent.responseObject as object), spec: {} };
    const { changes } = normalizeAuditEvents({
      body: list({ ...scaleEvent, verb: 'update', responseObject: response }),
      target,
    });
    expect(changes.map(({ content }) => JSON.parse(content!).replicas)).toEqual([0]);
  });

  it("given a custom resource's scale when normalized then it is not recorded: only its CRD knows the field", () => {
    const ref = {
      resource: 'flunders',
      namespace: 'shop',
      name: 'f',
      apiGroup: 'wardle.example.com',
      apiVersion: 'v1alpha1',
      subresource: 'scale',
    };
    const { changes, ignored } = normalizeAuditEvents({
      body: list({ ...scaleEvent, objectRef: ref }),
      target,
    });
    expect(changes).toEqual([]);
    expect(ignored).toEqual([
      expect.objectContaining({
        reason: 'subresource',
        message: expect.stringContaining('CustomResourceDefinition'),
      }),
    ]);
  });
});

describe('a Namespace deleted, from the forwarder', () => {
  it.each([
    ['DELETED', {}],
    ['MODIFIED', { deletionTimestamp: '2026-12-01T10:00:00Z' }],
  ])(
    'given a %s Namespace watch event when normalized then it removes the namespace with its folder',
    (type, extra) => {
      const { changes } = normalizeWatchEvents({
        body: { events: [{ type, resource: 'namespaces', object: namespace(extra) }] },
        target,
      });
      expect(changes.map(({ path, operation }) => [path, operation])).toEqual([
        ['clusters/prod/_cluster/namespaces/shop.yaml', 'delete-namespace'],
      ]);
    },
  );
});
