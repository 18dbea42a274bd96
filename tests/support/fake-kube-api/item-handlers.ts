import { isDeepStrictEqual } from 'node:util';
import { type KubeObject, ObjectStore, type ResourceType } from './object-store';
import { type KubeStatus, type ResourceName, statusObjects } from './status-objects';

export interface Reply {
  status: number;
  body: KubeObject | KubeStatus;
}

export interface ItemRequest {
  type: ResourceType;
  namespace: string | undefined;
  name: string;
  subresource: 'status' | undefined;
  method: string;
  contentType: string;
  body: unknown;
}

const MERGE_PATCH = 'application/merge-patch+json';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resourceName(request: ItemRequest): ResourceName {
  return {
    group: request.type.group,
    resource: request.type.resource,
    kind: request.type.kind,
    name: request.name,
  };
}

/** RFC 7386 JSON merge patch: what `kubectl patch --type merge` sends. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * GET, PUT, PATCH (merge) and DELETE of one object or its `/status`, with kube-apiserver's
 * update rules: `metadata.resourceVersion` is required on PUT and must match (else 409 Conflict),
 * a `metadata.uid` in the body is a precondition (409), and with a status subresource the main
 * resource keeps the stored `.status` while `/status` changes nothing but `.status`.
 */
export function handleItem(store: ObjectStore, request: ItemRequest): Reply {
  const key = ObjectStore.key(request.type, request.namespace, request.name);
  const stored = store.get(key);
  const name = resourceName(request);
  if (request.method === 'POST') return { status: 405, body: statusObjects.methodNotAllowed('POST') };
  if (stored === undefined) return { status: 404, body: statusObjects.notFound(name) };
  switch (request.method) {
    case 'GET':
      return { status: 200, body: stored };
    case 'DELETE':
      return { status: 200, body: store.delete(key)! };
    case 'PUT':
      return update(store, request, key, stored, request.body, { requireResourceVersion: true });
    case 'PATCH': {
      if (request.contentType !== MERGE_PATCH) {
        return { status: 415, body: statusObjects.unsupportedMediaType(request.contentType) };
      }
      if (!isObject(request.body))
        return { status: 400, body: statusObjects.badRequest('patch is not an object') };
      const patched = mergePatch(stored, request.body);
      return update(store, request, key, stored, patched, { requireResourceVersion: false });
    }
    default:
      return { status: 405, body: statusObjects.methodNotAllowed(request.method) };
  }
}

function update(
  store: ObjectStore,
  request: ItemRequest,
  key: string,
  stored: KubeObject,
  body: unknown,
  { requireResourceVersion }: { requireResourceVersion: boolean },
): Reply {
  const name = resourceName(request);
  if (!isObject(body) || !isObject(body.metadata)) {
    return { status: 400, body: statusObjects.badRequest('the body is not a Kubernetes object') };
  }
  const metadata = body.metadata;
  if (metadata.name !== request.name) {
    return {
      status: 400,
      body: statusObjects.badRequest(
        `the name of the object (${String(metadata.name)}) does not match the name on the URL (${request.name})`,
      ),
    };
  }
  if (metadata.uid !== undefined && metadata.uid !== stored.metadata.uid) {
    return {
      status: 409,
      body: statusObjects.uidPreconditionFailed(name, String(metadata.uid), String(stored.metadata.uid)),
    };
  }
  if (metadata.resourceVersion === undefined && requireResourceVersion) {
    return {
      status: 422,
      body: statusObjects.invalid(
        name,
        'metadata.resourceVersion',
        'Invalid value: 0x0: must be specified for an update',
      ),
    };
  }
  if (
    metadata.resourceVersion !== undefined &&
    metadata.resourceVersion !== stored.metadata.resourceVersion
  ) {
    return { status: 409, body: statusObjects.conflict(name) };
  }
  const next = nextObject(request, stored, body as KubeObject);
  // The apiserver skips a write that changes nothing: the resourceVersion stays.
  if (isDeepStrictEqual(next, stored)) return { status: 200, body: stored };
  const specChanged = !isDeepStrictEqual(next.spec, stored.spec);
  return { status: 200, body: store.replace(key, next, { specChanged }) };
}

function nextObject(request: ItemRequest, stored: KubeObject, body: KubeObject): KubeObject {
  // Server-owned metadata is never taken from the client.
  const metadata = {
    ...body.metadata,
    uid: stored.metadata.uid,
    generation: stored.metadata.generation,
    creationTimestamp: stored.metadata.creationTimestamp,
    resourceVersion: stored.metadata.resourceVersion,
  };
  if (request.subresource === 'status') {
    const next: KubeObject = { ...stored };
    if (body.status === undefined) delete next.status;
    else next.status = body.status;
    return next;
  }
  const next: KubeObject = { ...body, metadata };
  if (request.type.statusSubresource) {
    if (stored.status === undefined) delete next.status;
    else next.status = stored.status;
  }
  return next;
}
