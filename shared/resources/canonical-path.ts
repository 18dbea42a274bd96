import type { ResourceIdentity } from './change';
import { isGroupName, isNamespaceName, isObjectName, isResourceName } from './names';

/** The folder for cluster-scoped objects: not a valid namespace name, so it never collides with one. */
export const CLUSTER_SCOPE_FOLDER = '_cluster';

/**
 * The canonical repository path of an object inside a target:
 * `{target path}/{namespace|_cluster}/{group}/{resource}/{name}.yaml`, the core group omitted and no
 * prefix for a root (`.`) target. Every segment is re-checked, so even a caller that skipped
 * validation cannot produce a path outside the target.
 * @example canonicalPath({ targetPath: 'clusters/prod', identity: { group: 'apps', resource: 'deployments', namespace: 'web', name: 'api', … } })
 * // 'clusters/prod/web/apps/deployments/api.yaml'
 */
export function canonicalPath({
  targetPath,
  identity,
}: {
  targetPath: string;
  identity: Pick<ResourceIdentity, 'group' | 'resource' | 'namespace' | 'name'>;
}): string {
  const { group, resource, namespace, name } = identity;
  if (!isGroupName(group) || !isResourceName(resource) || !isObjectName(name, group)) {
    throw new TypeError('canonicalPath: identity is not made of Kubernetes names');
  }
  if (namespace !== undefined && !isNamespaceName(namespace)) {
    throw new TypeError('canonicalPath: namespace is not a Kubernetes namespace name');
  }
  const segments = [
    namespace ?? CLUSTER_SCOPE_FOLDER,
    ...(group === '' ? [] : [group]),
    resource,
    `${name}.yaml`,
  ];
  const prefix = normalizeTargetPath(targetPath);
  return prefix === '' ? segments.join('/') : `${prefix}/${segments.join('/')}`;
}

function normalizeTargetPath(targetPath: string): string {
  const trimmed = targetPath.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  const parts = trimmed.split('/');
  if (trimmed.startsWith('/') || parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw new TypeError('canonicalPath: target path must be relative and inside the repository');
  }
  return trimmed;
}
