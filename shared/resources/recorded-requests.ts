/**
 * What each audited verb and subresource becomes (docs/payloads.md, "Verbs and subresources" is
 * this table, kept equal by a test). Verbs and subresources are the apiserver's RequestInfo ones
 * (k8s.io/apiserver pkg/endpoints/request/requestinfo.go): a request on `/…/{name}/{subresource}`
 * names its parent in `objectRef` and the subresource beside it.
 */
export type RequestRule = { recorded: boolean; how: string };

export const VERB_RULES = {
  create: { recorded: true, how: 'the object in `responseObject` is written' },
  update: { recorded: true, how: 'the object in `responseObject` is written' },
  patch: { recorded: true, how: 'the object in `responseObject` is written' },
  delete: {
    recorded: true,
    how: "the file is removed; a Namespace's delete removes its file and every file under its folder",
  },
  deletecollection: {
    recorded: true,
    how: 'a listed `responseObject` removes each listed object; a hollow one removes the files the selectors match in the collection, at publication',
  },
  get: { recorded: false, how: 'a read changes nothing' },
  list: { recorded: false, how: 'a read changes nothing' },
  watch: { recorded: false, how: 'a read changes nothing' },
} as const satisfies Record<string, RequestRule>;

export const SUBRESOURCE_RULES = {
  scale: {
    recorded: true,
    how: "sets `spec.replicas` in the parent's held file (Deployments, ReplicaSets, StatefulSets, ReplicationControllers); a custom resource's is not recorded: only its CustomResourceDefinition knows which field holds the count",
  },
  ephemeralcontainers: { recorded: true, how: 'the Pod in `responseObject` is written, as an update' },
  resize: { recorded: true, how: 'the Pod in `responseObject` is written, as an update' },
  status: { recorded: false, how: '`status` is stripped from every recorded file' },
  finalize: {
    recorded: false,
    how: 'only the namespace controller calls it, on a Namespace being deleted, whose files are already removed',
  },
  binding: { recorded: false, how: 'it assigns a Pod to a node; `nodeName` is stripped' },
  eviction: {
    recorded: false,
    how: "it asks for a Pod's deletion; the Pod's own update and delete events record it",
  },
  approval: { recorded: false, how: 'CertificateSigningRequests are never recorded (credentials)' },
  token: { recorded: false, how: 'a ServiceAccount token is a credential, never recorded' },
  log: { recorded: false, how: 'a read or a stream: nothing is stored' },
  exec: { recorded: false, how: 'a read or a stream: nothing is stored' },
  attach: { recorded: false, how: 'a read or a stream: nothing is stored' },
  portforward: { recorded: false, how: 'a read or a stream: nothing is stored' },
  proxy: { recorded: false, how: 'a read or a stream: nothing is stored' },
} as const satisfies Record<string, RequestRule>;

/** Why a subresource's event is not recorded (one not in the table: an aggregated API's own). */
export function subresourceNotRecorded(subresource: string): string {
  const rule: RequestRule | undefined = Object.hasOwn(SUBRESOURCE_RULES, subresource)
    ? SUBRESOURCE_RULES[subresource as keyof typeof SUBRESOURCE_RULES]
    : undefined;
  return rule && !rule.recorded
    ? `subresource ${subresource} is not recorded: ${rule.how}`
    : `subresource ${subresource} is not recorded (its effect on the parent is not known)`;
}
