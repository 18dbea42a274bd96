const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// RBAC names are path segments in Kubernetes (system roles are named `system:controller:…`).
const RBAC_NAME = /^[A-Za-z0-9]([A-Za-z0-9:._@-]*[A-Za-z0-9])?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A namespace name: a DNS-1123 label. */
export function isNamespaceName(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

/**
 * An object name that is safe as a file name: a DNS-1123 subdomain, or for RBAC objects the
 * colon-bearing names Kubernetes itself uses. Neither form can hold `/`, or be `.` or `..`.
 */
export function isObjectName(text: string, group: string): boolean {
  if (text.length > 253) return false;
  return DNS_SUBDOMAIN.test(text) || (group === RBAC_GROUP && RBAC_NAME.test(text));
}

/** A plural resource name such as `deployments`. */
export function isResourceName(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

/** An API group (`''` is the core group). */
export function isGroupName(text: string): boolean {
  return text === '' || (text.length <= 253 && DNS_SUBDOMAIN.test(text));
}

/** An API version such as `v1` or `v1beta2`. */
export function isVersionName(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

/** A kind such as `Deployment`. */
export function isKindName(text: string): boolean {
  return KIND.test(text);
}

/** Splits `apps/v1` into group and version; `v1` is the core group. Undefined when malformed. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  const [first, second] = parts;
  if (parts.length === 1 && first !== undefined && isVersionName(first)) return { group: '', version: first };
  if (parts.length === 2 && first && second !== undefined && isGroupName(first) && isVersionName(second)) {
    return { group: first, version: second };
  }
  return undefined;
}
