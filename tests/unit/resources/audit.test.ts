import { normalizeAuditEvents, PayloadInvalid } from '../../../shared/resources';
import { loadFixture } from './load-fixture';

const target = { path: 'clusters/prod' };

function invalidIssues(body: unknown) {
  try {
    normalizeAuditEvents({ body, target });
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadInvalid);
    return (error as PayloadInvalid).data.issues;
  }
  throw new Error('expected the EventList to be refused');
}

describe('audit EventLists from the apiserver webhook', () => {
  it('given a persisted ConfigMap patch when normalized then its sanitized YAML is written at the canonical path by the audit user', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/configmap-patch.yaml'),
      target,
    });
    expect(ignored).toEqual([]);
    expect(changes).toEqual([
      {
        path: 'clusters/prod/shop/configmaps/app-settings.yaml',
        operation: 'upsert',
        content: [
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: app-settings',
          '  namespace: shop',
          '  labels:',
          '    app: shop',
          '  annotations:',
          '    team: payments',
          'data:',
          '  mode: fast',
          '  retries: "3"',
          '',
        ].join('\n'),
        identity: {
          group: '',
          version: 'v1',
          resource: 'configmaps',
          kind: 'ConfigMap',
          namespace: 'shop',
          name: 'app-settings',
        },
        resourceVersion: '13772844',
        uid: '0b2c7a51-3a5e-4b53-8f1e-2f7d6c1c9a11',
        author: {
          username: 'alice@example.com',
          uid: '7d1e-alice',
          groups: ['developers', 'system:authenticated'],
        },
      },
    ]);
  });

  it('given a dry-run patch when normalized then nothing is recorded and the reason is dry-run', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/secret-dryrun-patch.yaml'),
      target,
    });
    expect(changes).toEqual([]);
    expect(ignored).toEqual([expect.objectContaining({ reason: 'dry-run', index: 0 })]);
  });

  it('given an update that kept its resourceVersion when normalized then it is ignored as unchanged', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/unchanged-rv-update.yaml'),
      target,
    });
    expect(changes).toEqual([]);
    expect(ignored).toEqual([
      expect.objectContaining({ reason: 'unchanged', auditID: '14b03863-03c3-4527-b291-64efbc8eb7aa' }),
    ]);
  });

  it('given a deletecollection listing what it deleted when normalized then each listed object is deleted by its user', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/deletecollection.json'),
      target,
    });
    expect(ignored).toEqual([]);
    expect(changes).toEqual([
      expect.objectContaining({
        path: 'clusters/prod/teardown/wardle.example.com/flunders/member-0.yaml',
        operation: 'delete',
        author: expect.objectContaining({
          username: 'system:serviceaccount:kube-system:namespace-controller',
        }),
      }),
    ]);
  });

  it('given a kubectl scale patch (an autoscaling/v1 Scale answered) when normalized then it sets the parent deployment replicas, never written as a Scale object', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/deployment-scale.json'),
      target,
    });
    expect(ignored).toEqual([]);
    expect(changes).toEqual([
      expect.objectContaining({
        path: 'clusters/prod/shop/apps/deployments/checkout.yaml',
        operation: 'set-replicas',
        content: JSON.stringify({ version: 1, kind: 'replicas', replicas: 3 }),
        resourceVersion: '6977',
      }),
    ]);
  });

  describe('given a mixed batch', () => {
    const result = () => normalizeAuditEvents({ body: loadFixture('audit/mixed-batch.yaml'), target });

    it('when normalized then each unrecorded event is counted with its reason and position', () => {
      expect(result().ignored.map(({ index, reason }) => [index, reason])).toEqual([
        [0, 'stage-not-complete'],
        [1, 'verb-not-recorded'],
        [3, 'request-failed'],
        [7, 'no-response-object'],
        [9, 'subresource'],
      ]);
    });

    it('when normalized then only the changes of create requests are marked created', () => {
      expect(result().changes.map((change) => [change.path.split('/').at(-1), change.created])).toEqual([
        ['checkout.yaml', true],
        ['old-settings.yaml', undefined],
        ['system:aggregate-to-shop.yaml', true],
        ['checkout.yaml', undefined],
        ['legacy.yaml', undefined],
        ['draining.yaml', undefined],
      ]);
    });

    it('when normalized then the changes keep the batch order', () => {
      expect(result().changes.map((change) => [change.operation, change.path])).toEqual([
        ['upsert', 'clusters/prod/shop/apps/deployments/checkout.yaml'],
        ['delete', 'clusters/prod/shop/configmaps/old-settings.yaml'],
        [
          'upsert',
          'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/system:aggregate-to-shop.yaml',
        ],
        ['upsert', 'clusters/prod/shop/services/checkout.yaml'],
        ['delete', 'clusters/prod/shop/apps/deployments/legacy.yaml'],
        ['delete', 'clusters/prod/shop/configmaps/draining.yaml'],
      ]);
    });

    it('when an impersonated create is normalized then the impersonated user is the author', () => {
      expect(result().changes[0]?.author).toEqual({
        username: 'bob@example.com',
        uid: 'bob-uid',
        groups: ['developers'],
      });
    });

    it('when a Deployment is normalized then status and server-assigned metadata are gone and keys are ordered', () => {
      expect(result().changes[0]?.content).toBe(
        [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: checkout',
          '  namespace: shop',
          '  labels:',
          '    app: checkout',
          '  annotations:',
          '    owner: team-shop',
          'spec:',
          '  replicas: 2',
          '  selector:',
          '    matchLabels:',
          '      app: checkout',
          '  template:',
          '    metadata:',
          '      labels:',
          '        app: checkout',
          '    spec:',
          '      containers:',
          '        - image: registry.example.com/checkout:1.4.2',
          '          name: checkout',
          '          ports:',
          '            - containerPort: 8080',
          '              protocol: TCP',
          '',
        ].join('\n'),
      );
    });

    it('when a delete answered by a Status is normalized then the identity comes from objectRef and the uid from the Status', () => {
      const deleted = result().changes[1];
      expect(deleted).toEqual({
        path: 'clusters/prod/shop/configmaps/old-settings.yaml',
        operation: 'delete',
        uid: '11111111-0000-4000-8000-000000000004',
        identity: {
          group: '',
          version: 'v1',
          resource: 'configmaps',
          kind: '',
          namespace: 'shop',
          name: 'old-settings',
        },
        author: { username: 'alice@example.com' },
      });
    });

    it('when a delete answered by the object is normalized then the kind is known', () => {
      expect(result().changes[4]?.identity.kind).toBe('Deployment');
    });

    it('when a Service is normalized then cluster-assigned addresses are not recorded', () => {
      const service = result().changes[3]?.content ?? '';
      expect(service).toContain('selector:');
      for (const field of [
        'clusterIP',
        'ipFamilies',
        'ipFamilyPolicy',
        'internalTrafficPolicy',
        'loadBalancer',
      ]) {
        expect(service).not.toContain(field);
      }
    });
  });

  it('given a create the apiserver refused with 422 when normalized then it is ignored as failed', () => {
    const body = loadFixture('audit/configmap-patch.yaml') as {
      items: { responseStatus: { code: number } }[];
    };
    body.items[0]!.responseStatus.code = 422;
    expect(normalizeAuditEvents({ body, target }).ignored).toEqual([
      expect.objectContaining({ reason: 'request-failed', message: 'request answered 422' }),
    ]);
  });

  it('given an empty list encoded as null when normalized then nothing happens', () => {
    expect(
      normalizeAuditEvents({
        body: { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: null },
        target,
      }),
    ).toEqual({
      changes: [],
      ignored: [],
    });
  });

  it('given a body that is not an EventList when normalized then it is refused naming the fields', () => {
    expect(invalidIssues({ apiVersion: 'audit.k8s.io/v1beta1', kind: 'EventList', items: [] })).toEqual([
      { path: 'apiVersion', message: expect.any(String) },
    ]);
    expect(
      invalidIssues({
        apiVersion: 'audit.k8s.io/v1',
        kind: 'EventList',
        items: [{ stage: 'ResponseComplete' }],
      }).map((i) => i.path),
    ).toEqual(['items[0].auditID', 'items[0].verb', 'items[0].requestURI', 'items[0].user']);
  });

  it('given a recorded event whose object name is a path trick when normalized then the whole list is refused', () => {
    const body = loadFixture('audit/mixed-batch.yaml') as {
      items: { responseObject?: { metadata: { name: string } } }[];
    };
    body.items[6]!.responseObject!.metadata.name = '../../etc/passwd';
    expect(invalidIssues(body)).toEqual([
      { path: 'items[6].responseObject.metadata.name', message: expect.stringContaining('Kubernetes name') },
    ]);
  });

  it('given a delete whose objectRef name is a path trick when normalized then it is refused', () => {
    const body = loadFixture('audit/mixed-batch.yaml') as { items: { objectRef: { name?: string } }[] };
    body.items[4]!.objectRef.name = '..';
    expect(invalidIssues(body)).toEqual([
      { path: 'items[4].objectRef.name', message: 'must be a Kubernetes name' },
    ]);
  });

  it('given a responseObject for another object than objectRef when normalized then it is refused', () => {
    const body = loadFixture('audit/configmap-patch.yaml') as { items: { objectRef: { name: string } }[] };
    body.items[0]!.objectRef.name = 'other-settings';
    expect(invalidIssues(body)).toEqual([
      { path: 'items[0].responseObject', message: 'names another object than objectRef' },
    ]);
  });

  it('given a configured sensitive resource when normalized then it is ignored like a Secret', () => {
    const { changes, ignored } = normalizeAuditEvents({
      body: loadFixture('audit/configmap-patch.yaml'),
      target: { path: '.', sensitiveResources: ['configmaps'] },
    });
    expect(changes).toEqual([]);
    expect(ignored).toEqual([expect.objectContaining({ reason: 'sensitive-resource' })]);
  });

  it('given the same event twice when normalized then the content is byte-identical, so downstream can skip the repeat', () => {
    const first = normalizeAuditEvents({ body: loadFixture('audit/configmap-patch.yaml'), target });
    const second = normalizeAuditEvents({ body: loadFixture('audit/configmap-patch.yaml'), target });
    expect(second.changes[0]?.content).toBe(first.changes[0]?.content);
  });
});

describe('an audit event for an object that is never stored', () => {
  it('ignores a TokenReview (no name) as a credential kind instead of refusing the whole list', () => {
    const tokenReview = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: 'review-1',
      stage: 'ResponseComplete',
      requestURI: '/apis/authentication.k8s.io/v1/tokenreviews',
      verb: 'create',
      user: { username: 'system:kube-controller-manager' },
      objectRef: { resource: 'tokenreviews', apiGroup: 'authentication.k8s.io', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      responseObject: {
        kind: 'TokenReview',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { creationTimestamp: null },
        spec: { token: 'not-recorded' },
        status: { authenticated: true },
      },
    };
    const result = normalizeAuditEvents({
      body: { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', items: [tokenReview] },
      target: { path: '.' },
    });
    expect(result.changes).toEqual([]);
    expect(result.ignored).toEqual([expect.objectContaining({ reason: 'sensitive-resource', index: 0 })]);
    expect(JSON.stringify(result)).not.toContain('not-recorded');
  });
});
