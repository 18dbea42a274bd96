/**
 * `meta.k8s.io/v1` Status bodies as kube-apiserver sends them for failures, so clients parse the
 * fake's errors exactly as they would a real server's (reason, code, details).
 */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { message: string; field?: string }[] };
  code: number;
}

function failure(code: number, reason: string, message: string, details?: KubeStatus['details']): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details === undefined ? {} : { details }),
    code,
  };
}

export interface ResourceName {
  group: string;
  resource: string;
  kind: string;
  name: string;
}

function qualified(r: ResourceName): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

export const statusObjects = {
  notFound: (r: ResourceName) =>
    failure(404, 'NotFound', `${qualified(r)} "${r.name}" not found`, {
      name: r.name,
      group: r.group,
      kind: r.resource,
    }),
  alreadyExists: (r: ResourceName) =>
    failure(409, 'AlreadyExists', `${qualified(r)} "${r.name}" already exists`, {
      name: r.name,
      group: r.group,
      kind: r.resource,
    }),
  conflict: (r: ResourceName) =>
    failure(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(r)} "${r.name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name: r.name, group: r.group, kind: r.resource },
    ),
  uidPreconditionFailed: (r: ResourceName, expected: string, actual: string) =>
    failure(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(r)} "${r.name}": Precondition failed: UID in precondition: ${expected}, UID in object meta: ${actual}`,
      { name: r.name, group: r.group, kind: r.resource },
    ),
  invalid: (r: ResourceName, field: string, message: string) =>
    failure(422, 'Invalid', `${r.kind}.${r.group} "${r.name}" is invalid: ${field}: ${message}`, {
      name: r.name,
      group: r.group,
      kind: r.kind,
      causes: [{ field, message }],
    }),
  unauthorized: () => failure(401, 'Unauthorized', 'Unauthorized'),
  methodNotAllowed: (method: string) =>
    failure(
      405,
      'MethodNotAllowed',
      `the server does not allow this method (${method}) on the requested resource`,
    ),
  unsupportedMediaType: (contentType: string) =>
    failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format: ${contentType}`),
  badRequest: (message: string) => failure(400, 'BadRequest', message),
  /** For a later list/watch: a resourceVersion older than the retained history. */
  expired: (message: string) => failure(410, 'Expired', message),
  internalError: (message: string) => failure(500, 'InternalError', `Internal error occurred: ${message}`),
};
