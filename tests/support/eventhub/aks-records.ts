// AKS control-plane logs as a diagnostic setting streams them to Event Hubs, modelled on real records:
// - the envelope (`{"records": [...]}`, `time`, `resourceId` in capitals, `category`, `operationName`,
//   `properties.log` holding the audit event as a JSON string, `stream`, `pod`): Azure Monitor's
//   resource log schema (learn.microsoft.com/azure/azure-monitor/essentials/resource-logs-schema)
//   and the consumer sysdiglabs/aks-kubernetes-audit-log (`HubEventUnpacker.cs` reads
//   `records[].properties.log` and parses it as the audit event);
// - the categories `kube-audit` (every verb) and `kube-audit-admin` (no get or list), and
//   `requestObject` / `responseObject` as the string "skipped-too-big-size-object" when the object
//   is too big: the AKSAudit and AKSAuditAdmin table references (learn.microsoft.com/azure/
//   azure-monitor/reference/tables/aksauditadmin);
// - the audit events: `audit.k8s.io/v1` Events as tests/fixtures/audit/configmap-patch.yaml (a real
//   capture's shape), with AKS's Entra ID users (a UPN) and ServiceAccounts.

const RESOURCE_ID =
  '/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/RG-PROD/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/AKS-PROD';

export interface AuditEventSpec {
  auditID: string;
  verb: 'create' | 'update' | 'patch' | 'delete' | 'get' | 'list';
  user: string;
  namespace: string;
  name: string;
  resourceVersion?: string;
  data?: Record<string, string>;
  /** The apiserver's stageTimestamp (microseconds). */
  at: string;
  /** The object was too big for the log. */
  tooBig?: true;
}

/** One `audit.k8s.io/v1` Event of a ConfigMap request at RequestResponse level, as the apiserver logs it. */
export function auditEvent(spec: AuditEventSpec): Record<string, unknown> {
  const uri = `/api/v1/namespaces/${spec.namespace}/configmaps${spec.verb === 'list' ? '' : `/${spec.name}`}`;
  const object = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: {
      name: spec.name,
      namespace: spec.namespace,
      uid: `uid-${spec.name}`,
      resourceVersion: spec.resourceVersion ?? '1',
      creationTimestamp: '2026-11-27T16:30:31Z',
      managedFields: [{ manager: 'kubectl', operation: 'Update' }],
    },
    data: spec.data ?? {},
  };
  const deleted = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: spec.name, kind: 'configmaps', uid: `uid-${spec.name}` },
  };
  const response =
    spec.verb === 'delete'
      ? deleted
      : spec.verb === 'list'
        ? { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }
        : object;
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: spec.auditID,
    stage: 'ResponseComplete',
    requestURI: uri,
    verb: spec.verb,
    user: spec.user.startsWith('system:serviceaccount:')
      ? {
          username: spec.user,
          uid: `uid-${spec.user}`,
          groups: ['system:serviceaccounts', 'system:authenticated'],
        }
      : {
          username: spec.user,
          groups: ['system:authenticated'],
          extra: { oid: ['3f2a5c1e-0000-4000-8000-00000000a11c'] },
        },
    sourceIPs: ['10.224.0.4'],
    userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc1234',
    objectRef: {
      resource: 'configmaps',
      namespace: spec.namespace,
      ...(spec.verb === 'list' ? {} : { name: spec.name }),
      apiVersion: 'v1',
    },
    responseStatus: { metadata: {}, code: spec.verb === 'create' ? 201 : 200 },
    ...(spec.verb === 'patch'
      ? { requestObject: spec.tooBig ? 'skipped-too-big-size-object' : { data: spec.data } }
      : {}),
    responseObject: spec.tooBig ? 'skipped-too-big-size-object' : response,
    requestReceivedTimestamp: spec.at,
    stageTimestamp: spec.at,
    annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
  };
}

/** A diagnostic record of `category` carrying `event`; `log` as a JSON string (what AKS sends) or an object. */
export function record(
  category: string,
  event: Record<string, unknown>,
  logAs: 'string' | 'object' = 'string',
): Record<string, unknown> {
  return {
    time: String(event.stageTimestamp ?? '2026-11-30T10:15:02.1234567Z'),
    resourceId: RESOURCE_ID,
    category,
    operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
    properties: {
      log: logAs === 'string' ? JSON.stringify(event) : event,
      stream: 'stdout',
      pod: 'kube-apiserver-6d8f7c9b5-x2k4q',
    },
  };
}

/** Records of other AKS categories: guard (Entra ID / Azure RBAC decisions) and an apiserver log line. */
export function otherRecords(): Record<string, unknown>[] {
  return [
    {
      time: '2026-11-30T10:15:01.0000000Z',
      resourceId: RESOURCE_ID,
      category: 'guard',
      operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
      properties: {
        log: 'I1130 10:15:01.000000 1 guard.go:62] authorized alice@contoso.com',
        pod: 'guard-5c8',
      },
    },
    {
      time: '2026-11-30T10:15:01.5000000Z',
      resourceId: RESOURCE_ID,
      category: 'kube-apiserver',
      operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
      properties: {
        log: 'I1130 10:15:01.500000 1 controller.go:615] quota admission added evaluator',
        pod: 'kube-apiserver-6d8f7c9b5-x2k4q',
      },
    },
  ];
}

/** One Event Hubs event body: `{"records": [...]}`. */
export function body(...records: Record<string, unknown>[]): { records: Record<string, unknown>[] } {
  return { records };
}
