import {
  normalizeAuditEvents,
  normalizeSnapshot,
  normalizeWatchEvents,
  SENSITIVE_KINDS,
  type SensitiveKind,
  sensitivity,
} from '../../../shared/resources';

const target = { path: '.' };
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.credential-never-recorded-91c2';

function apiVersion(group: string): string {
  return group === '' ? 'v1' : `${group}/v1`;
}

/** A named object of the kind, carrying the token where a review, request or Secret would. */
function objectOf(entry: SensitiveKind, name = 'named-one') {
  return {
    apiVersion: apiVersion(entry.group),
    kind: entry.kind,
    metadata: { name, namespace: 'shop' },
    spec: { token: TOKEN, request: TOKEN },
    data: { token: TOKEN },
    status: { token: TOKEN, certificate: TOKEN },
  };
}

function auditEvent(entry: SensitiveKind, name?: string) {
  return {
    auditID: `audit-${entry.kind}`,
    stage: 'ResponseComplete',
    verb: 'create',
    requestURI: '/apis/x',
    user: { username: 'alice' },
    objectRef: {
      resource: entry.resource,
      apiGroup: entry.group,
      apiVersion: 'v1',
      namespace: 'shop',
      ...(name ? { name } : {}),
      ...(entry.subresource ? { subresource: entry.subresource } : {}),
    },
    responseStatus: { code: 201 },
    requestObject: objectOf(entry, name),
    responseObject: objectOf(entry, name),
  };
}

const credentials = SENSITIVE_KINDS.filter((entry) => entry.category === 'credential');

describe('the one list of kinds that are never recorded', () => {
  it('lists every credential-bearing kind, and the Secret apart as refused until encryption', () => {
    expect(credentials.map((entry) => entry.kind).sort()).toEqual([
      'CertificateSigningRequest',
      'LocalSubjectAccessReview',
      'SelfSubjectAccessReview',
      'SelfSubjectReview',
      'SelfSubjectRulesReview',
      'SubjectAccessReview',
      'TokenRequest',
      'TokenReview',
    ]);
    expect(SENSITIVE_KINDS.filter((entry) => entry.category === 'secret').map((entry) => entry.kind)).toEqual(
      ['Secret'],
    );
  });

  it('says why: a credential, a Secret, or a configured resource', () => {
    expect(sensitivity({ group: 'authentication.k8s.io', resource: 'tokenreviews' })?.category).toBe(
      'credential',
    );
    expect(sensitivity({ group: '', resource: 'secrets' })?.category).toBe('secret');
    expect(
      sensitivity({ group: 'x.io', resource: 'vaults', sensitiveResources: ['x.io/vaults'] })?.category,
    ).toBe('configured');
    expect(sensitivity({ group: '', resource: 'serviceaccounts' })).toBeUndefined();
    expect(sensitivity({ group: '', resource: 'serviceaccounts', subresource: 'token' })?.category).toBe(
      'credential',
    );
  });

  it.each(credentials.map((entry) => [entry.kind, entry] as const))(
    'given a named %s in an audit EventList when normalized then it is ignored as sensitive and its token goes nowhere',
    (_kind, entry) => {
      const result = normalizeAuditEvents({
        body: { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: [auditEvent(entry, 'named-one')] },
        target,
      });
      expect(result.changes).toEqual([]);
      expect(result.ignored).toEqual([
        expect.objectContaining({
          reason: 'sensitive-resource',
          message: expect.stringContaining('never recorded'),
        }),
      ]);
      expect(JSON.stringify(result)).not.toContain(TOKEN);
    },
  );

  it.each(SENSITIVE_KINDS.map((entry) => [entry.kind, entry] as const))(
    'given a %s in watch events, under its own resource or another, when normalized then nothing is recorded',
    (_kind, entry) => {
      for (const resource of [entry.resource, 'configmaps']) {
        const result = normalizeWatchEvents({
          body: { events: [{ type: 'ADDED', resource, object: objectOf(entry) }] },
          target,
        });
        expect(result.changes).toEqual([]);
        expect(result.ignored).toEqual([expect.objectContaining({ reason: 'sensitive-resource' })]);
        expect(JSON.stringify(result)).not.toContain(TOKEN);
      }
    },
  );

  it('given a credential kind in a snapshot when normalized then it is ignored', () => {
    const entry = credentials.find(
      (candidate) => candidate.kind === 'CertificateSigningRequest',
    ) as SensitiveKind;
    const result = normalizeSnapshot({
      body: { revision: '3', objects: [{ resource: entry.resource, object: objectOf(entry) }] },
      target,
    });
    expect(result.changes).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('given an unnamed object of a kind not in the list when normalized then it is still ignored as unnamed', () => {
    const event = {
      ...auditEvent({ category: 'credential', group: 'example.dev', resource: 'probes', kind: 'Probe' }),
      responseObject: { apiVersion: 'example.dev/v1', kind: 'Probe', metadata: {} },
    };
    const result = normalizeAuditEvents({
      body: { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: [event] },
      target,
    });
    expect(result.ignored).toEqual([expect.objectContaining({ reason: 'unnamed-object' })]);
  });
});
