// The one exclusion rule of every route and the forwarder. Audit shapes from a real capture
// (tests/fixtures/audit/configmap-patch.yaml); managedFields as the apiserver keeps them: entries
// in no time order, `time` to the second (metav1.ManagedFieldsEntry), so the newest time wins and
// the later entry of one second.
import {
  type Exclusion,
  exclusionCheck,
  latestFieldManager,
  normalizeAuditEvents,
  normalizeWatchEvents,
} from '../../../shared/resources';
import { loadFixture } from './load-fixture';

const rule = (partial: Partial<Exclusion>): Exclusion => ({
  users: [],
  groups: [],
  fieldManagers: [],
  userAgents: [],
  ...partial,
});

const entry = (manager: string, time?: string) => ({
  manager,
  operation: 'Update',
  ...(time ? { time } : {}),
});

describe('latestFieldManager', () => {
  it('takes the newest time whatever the order, then the later entry of one time', () => {
    const object = (managedFields: unknown[]) => ({ metadata: { managedFields } });
    expect(
      latestFieldManager(
        object([
          entry('kubectl', '2026-11-28T11:19:13Z'),
          entry('kustomize-controller', '2026-11-27T10:00:00Z'),
        ]),
      ),
    ).toBe('kubectl');
    expect(
      latestFieldManager(
        object([
          entry('kustomize-controller', '2026-11-27T10:00:00Z'),
          entry('kubectl', '2026-11-28T11:19:13Z'),
        ]),
      ),
    ).toBe('kubectl');
    expect(
      latestFieldManager(object([entry('a', '2026-11-28T11:19:13Z'), entry('b', '2026-11-28T11:19:13Z')])),
    ).toBe('b');
  });

  it('is undefined for an object without managedFields, or not an object', () => {
    expect(latestFieldManager({ metadata: {} })).toBeUndefined();
    expect(latestFieldManager({ metadata: { managedFields: 'x' } })).toBeUndefined();
    expect(latestFieldManager(null)).toBeUndefined();
    expect(latestFieldManager([{ manager: 'a' }])).toBeUndefined();
  });
});

describe('exclusionCheck', () => {
  it('is undefined when nothing is configured', () => {
    expect(exclusionCheck([])).toBeUndefined();
    expect(exclusionCheck([{ rule: rule({}), from: 'target "prod"' }])).toBeUndefined();
  });

  it('matches names exactly and `*` as any run, every other character as itself', () => {
    const check = exclusionCheck([
      {
        rule: rule({
          users: ['system:serviceaccount:flux-system:*'],
          userAgents: ['argocd-application-controller/*'],
        }),
        from: 'target "prod"',
      },
      {
        rule: rule({ fieldManagers: ['helm.controller', 'kapp.k14s.io/*'], groups: ['gitops'] }),
        from: 'source "cluster"',
      },
    ]);
    const none = { users: [], groups: [] };
    expect(check?.({ ...none, users: ['system:serviceaccount:flux-system:kustomize-controller'] })).toBe(
      `the user matches "system:serviceaccount:flux-system:*" of target "prod"'s exclude.users`,
    );
    expect(
      check?.({ ...none, users: ['system:serviceaccount:flux-systemX:kustomize-controller'] }),
    ).toBeUndefined();
    expect(check?.({ ...none, userAgent: 'argocd-application-controller/v2.13.1 (linux/amd64)' })).toContain(
      'exclude.userAgents',
    );
    expect(check?.({ ...none, userAgent: 'kubectl/v1.33.0' })).toBeUndefined();
    expect(check?.({ ...none, fieldManager: 'helm.controller' })).toBe(
      `the field manager matches "helm.controller" of source "cluster"'s exclude.fieldManagers`,
    );
    // `.` is itself, not any character.
    expect(check?.({ ...none, fieldManager: 'helmXcontroller' })).toBeUndefined();
    expect(check?.({ ...none, fieldManager: 'kapp.k14s.io/v0.64' })).toContain('"kapp.k14s.io/*"');
    expect(check?.({ ...none, fieldManager: 'kappXk14sXio/v0.64' })).toBeUndefined();
    expect(check?.({ users: ['alice'], groups: ['system:authenticated', 'gitops'] })).toContain(
      'exclude.groups',
    );
  });
});

describe('exclusions on the routes', () => {
  const audit = (patch: (event: Record<string, unknown>) => void) => {
    const body = loadFixture('audit/configmap-patch.yaml') as { items: Record<string, unknown>[] };
    patch(body.items[0] as Record<string, unknown>);
    return body;
  };
  const target = (excluded: Exclusion) => ({
    path: 'clusters/prod',
    excluded: exclusionCheck([{ rule: excluded, from: 'target "prod"' }]),
  });

  it('excludes an audit event by its user agent, its impersonated user, its groups or its latest field manager', () => {
    const cases: [Exclusion, (event: Record<string, unknown>) => void][] = [
      [rule({ userAgents: ['kubectl/*'] }), () => {}],
      [
        rule({ users: ['system:serviceaccount:argocd:*'] }),
        (event) => {
          event.impersonatedUser = { username: 'system:serviceaccount:argocd:argocd-application-controller' };
        },
      ],
      [rule({ groups: ['developers'] }), () => {}],
      [rule({ fieldManagers: ['kubectl'] }), () => {}],
    ];
    for (const [excluded, patch] of cases) {
      const { changes, ignored } = normalizeAuditEvents({ body: audit(patch), target: target(excluded) });
      expect(changes).toEqual([]);
      expect(ignored).toMatchObject([
        { reason: 'excluded', index: 0, identity: { resource: 'configmaps', name: 'app-settings' } },
      ]);
    }
  });

  it('records what no rule matches, and a delete whatever its field manager (its answer is not the write)', () => {
    const kept = normalizeAuditEvents({
      body: audit(() => {}),
      target: target(rule({ fieldManagers: ['kustomize-controller'], users: ['bob'] })),
    });
    expect(kept.changes).toHaveLength(1);
    const deleted = normalizeAuditEvents({
      body: audit((event) => {
        event.verb = 'delete';
      }),
      target: target(rule({ fieldManagers: ['kubectl'] })),
    });
    expect(deleted.changes).toMatchObject([{ operation: 'delete' }]);
  });

  it('excludes a watch event by its author or its latest field manager, not a DELETED one by manager', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'app',
        namespace: 'shop',
        managedFields: [entry('helm-controller', '2026-11-28T11:19:13Z')],
      },
      data: { a: '1' },
    };
    const excluded = target(rule({ fieldManagers: ['helm-controller'], users: ['flux'] }));
    const { changes, ignored } = normalizeWatchEvents({
      body: {
        events: [
          { type: 'MODIFIED', resource: 'configmaps', object },
          {
            type: 'MODIFIED',
            resource: 'configmaps',
            object: { ...object, metadata: { name: 'b', namespace: 'shop' } },
            author: { username: 'flux' },
          },
          { type: 'DELETED', resource: 'configmaps', object },
        ],
      },
      target: excluded,
    });
    expect(ignored.map(({ reason, index }) => ({ reason, index }))).toEqual([
      { reason: 'excluded', index: 0 },
      { reason: 'excluded', index: 1 },
    ]);
    expect(changes).toMatchObject([{ operation: 'delete' }]);
  });
});
