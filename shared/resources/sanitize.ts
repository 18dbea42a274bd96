import type { KubeObject } from './kube-object';

/** Top-level fields kept besides apiVersion, kind and metadata (those the original operator kept; docs/payloads.md). */
const KEPT_FIELDS = [
  'spec',
  'data',
  'binaryData',
  'rules',
  'subjects',
  'roleRef',
  'webhooks',
  'template',
  'involvedObject',
  'reason',
  'message',
  'type',
  'eventTime',
] as const;

const STRIPPED_LABEL_PREFIXES = ['kustomize.toolkit.fluxcd.io/', 'kro.run/', 'applyset.kubernetes.io/'];
/** Whether sanitizing drops this label from every recorded file. */
export function isStrippedLabel(key: string): boolean {
  return STRIPPED_LABEL_PREFIXES.some((prefix) => key.startsWith(prefix));
}

const STRIPPED_ANNOTATIONS = new Set([
  'argocd.argoproj.io/tracking-id',
  'argocd.argoproj.io/installation-id',
  'kcp.io/cluster',
]);
const STRIPPED_ANNOTATION_PREFIXES = [
  'kubectl.kubernetes.io/',
  'control-plane.alpha.kubernetes.io/',
  'deployment.kubernetes.io/',
  'autoscaling.alpha.kubernetes.io/',
  'kustomize.toolkit.fluxcd.io/',
  'applyset.kubernetes.io/',
];

/** Fields the cluster assigns per kind (core group only); recording them would make every cluster's copy differ. */
const CLUSTER_ASSIGNED_SPEC_FIELDS: Record<string, readonly string[]> = {
  Service: [
    'clusterIP',
    'clusterIPs',
    'healthCheckNodePort',
    'ipFamilies',
    'ipFamilyPolicy',
    'internalTrafficPolicy',
  ],
  Pod: ['nodeName'],
  PersistentVolumeClaim: ['volumeName', 'volumeMode'],
};

/** A sanitized object: plain JSON, ready to render. */
export type SanitizedObject = Record<string, unknown>;

/**
 * Builds the object kubescribe records from scratch, as upstream does: apiVersion, kind, metadata
 * name/namespace and filtered labels/annotations, plus the top-level fields that describe desired
 * state. Status, server-assigned metadata (uid, resourceVersion, managedFields, ownerReferences,
 * finalizers…) and cluster-assigned spec fields are dropped. The input is not modified; the result
 * shares nested values with it (copying every object cost more than the rest of normalizing), so
 * treat both as read-only.
 */
export function sanitizeObject(object: KubeObject): SanitizedObject {
  const metadata: Record<string, unknown> = { name: object.metadata.name };
  if (object.metadata.namespace) metadata.namespace = object.metadata.namespace;
  const labels = filterMap(object.metadata.labels, (key) => !isStrippedLabel(key));
  if (labels) metadata.labels = labels;
  const annotations = filterMap(
    object.metadata.annotations,
    (key) => !STRIPPED_ANNOTATIONS.has(key) && !STRIPPED_ANNOTATION_PREFIXES.some((p) => key.startsWith(p)),
  );
  if (annotations) metadata.annotations = annotations;

  const sanitized: SanitizedObject = { apiVersion: object.apiVersion, kind: object.kind, metadata };
  const source = object as Record<string, unknown>;
  for (const field of KEPT_FIELDS) {
    if (source[field] !== undefined) sanitized[field] = source[field];
  }
  const dropped = object.apiVersion === 'v1' ? CLUSTER_ASSIGNED_SPEC_FIELDS[object.kind] : undefined;
  if (dropped && isPlainObject(sanitized.spec)) {
    const spec = { ...sanitized.spec };
    for (const field of dropped) delete spec[field];
    sanitized.spec = spec;
  }
  return sanitized;
}

function filterMap(
  map: Record<string, string> | null | undefined,
  keep: (key: string) => boolean,
): Record<string, string> | undefined {
  if (!map) return undefined;
  const entries = Object.entries(map).filter(([key]) => keep(key));
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
