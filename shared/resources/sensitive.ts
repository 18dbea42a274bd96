/**
 * Why a kind is never written: `credential` kinds carry tokens, review answers or certificates and
 * are never recorded; `secret` is recorded only SOPS-encrypted, on a target with `encryption`.
 */
export type SensitiveCategory = 'credential' | 'secret';

/** One kind kubescribe does not record, as its group, plural resource (and subresource) and kind. */
export type SensitiveKind = {
  category: SensitiveCategory;
  group: string;
  resource: string;
  subresource?: string;
  kind: string;
};

/** The one list of kinds that never reach Git, the payload store or a log (docs/payloads.md). */
export const SENSITIVE_KINDS: readonly SensitiveKind[] = [
  { category: 'secret', group: '', resource: 'secrets', kind: 'Secret' },
  { category: 'credential', group: 'authentication.k8s.io', resource: 'tokenreviews', kind: 'TokenReview' },
  {
    category: 'credential',
    group: 'authentication.k8s.io',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
  },
  {
    category: 'credential',
    group: '',
    resource: 'serviceaccounts',
    subresource: 'token',
    kind: 'TokenRequest',
  },
  {
    category: 'credential',
    group: 'authorization.k8s.io',
    resource: 'subjectaccessreviews',
    kind: 'SubjectAccessReview',
  },
  {
    category: 'credential',
    group: 'authorization.k8s.io',
    resource: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
  },
  {
    category: 'credential',
    group: 'authorization.k8s.io',
    resource: 'localsubjectaccessreviews',
    kind: 'LocalSubjectAccessReview',
  },
  {
    category: 'credential',
    group: 'authorization.k8s.io',
    resource: 'selfsubjectrulesreviews',
    kind: 'SelfSubjectRulesReview',
  },
  {
    category: 'credential',
    group: 'certificates.k8s.io',
    resource: 'certificatesigningrequests',
    kind: 'CertificateSigningRequest',
  },
];

/** What makes an object sensitive: a listed kind, or a resource the target's configuration names. */
export type Sensitivity = { category: SensitiveCategory | 'configured'; kind?: SensitiveKind };

/**
 * Whether an object must not be recorded, and why. A listed kind matches by its resource (and
 * subresource) in its group, or by its kind name in any group: a client could post a Secret under
 * another resource name or group, and refusing a look-alike costs less than recording a credential.
 * `sensitiveResources` entries are `resource` (any group) or `group/resource`.
 */
export function sensitivity({
  group,
  resource,
  subresource,
  kind,
  sensitiveResources = [],
}: {
  group: string;
  resource?: string;
  subresource?: string;
  kind?: string;
  sensitiveResources?: readonly string[];
}): Sensitivity | undefined {
  for (const entry of SENSITIVE_KINDS) {
    const byResource =
      group === entry.group &&
      resource === entry.resource &&
      (entry.subresource === undefined || subresource === entry.subresource);
    if (byResource || kind === entry.kind) return { category: entry.category, kind: entry };
  }
  if (resource === undefined) return undefined;
  const configured = sensitiveResources.some(
    (entry) => entry === resource || entry === `${group}/${resource}`,
  );
  return configured ? { category: 'configured' } : undefined;
}

/** Whether an object is a listed sensitive kind or a configured sensitive resource, and must not be recorded. */
export function isSensitive(object: Parameters<typeof sensitivity>[0]): boolean {
  return sensitivity(object) !== undefined;
}
