import type { ResourceType } from './object-store';

/** A request path resolved against the served resource types, the way kube-apiserver routes it. */
export type ResolvedPath =
  | { scope: 'collection'; type: ResourceType; namespace: string | undefined }
  | {
      scope: 'item';
      type: ResourceType;
      namespace: string | undefined;
      name: string;
      subresource: 'status' | undefined;
    };

/**
 * Resolves `/api/v1/...` and `/apis/{group}/{version}/...`, namespaced or cluster-scoped, with an
 * optional `/status`. Returns `undefined` for paths the server does not serve (answered 404).
 */
export function resolvePath(pathname: string, types: readonly ResourceType[]): ResolvedPath | undefined {
  const segments = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 2) {
    group = '';
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  const type = types.find((t) => t.group === group && t.version === version && t.resource === resource);
  if (type === undefined || extra.length > 0) return undefined;
  if (!type.namespaced && namespace !== undefined) return undefined;
  // A namespaced collection without a namespace is the all-namespaces list; an item needs one.
  if (name === undefined) return { scope: 'collection', type, namespace };
  if (type.namespaced && namespace === undefined) return undefined;
  if (subresource !== undefined && !(subresource === 'status' && type.statusSubresource)) return undefined;
  return { scope: 'item', type, namespace, name, subresource };
}
