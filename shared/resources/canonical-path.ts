import { createHash } from 'node:crypto';
import type { ResourceIdentity } from './change';
import { isGroupName, isNamespaceName, isObjectName, isResourceName } from './names';
import { decodeSegment, portableFileName, portableFolder } from './portable-path';

/**
 * How a target names its files: `native`, the names as Kubernetes gives them (what every release
 * before 0.4.0 wrote); `portable`, encoded so that Windows and macOS can check them out
 * (shared/resources/portable-path.ts).
 */
export type PathMode = 'native' | 'portable';

/** The folder for cluster-scoped objects: not a valid namespace name, so it never collides with one. */
export const CLUSTER_SCOPE_FOLDER = '_cluster';

/** The longest file name (bytes) that ext4, NTFS, APFS and Git checkouts on them all take. */
export const MAX_FILE_NAME_BYTES = 255;

/** Hex digits of the name's sha256 kept in a shortened file name (128 bits: no collision can be searched for). */
const NAME_HASH_HEX = 32;
const EXTENSION = '.yaml';

/**
 * The canonical repository path of an object inside a target:
 * `{target path}/{namespace|_cluster}/{group}/{resource}/{name}.yaml`, the core group omitted and no
 * prefix for a root (`.`) target. Every segment is re-checked, so even a caller that skipped
 * validation cannot produce a path outside the target. A name too long for a file name is shortened
 * (see `fileName`), so every path component fits 255 bytes.
 * @example canonicalPath({ targetPath: 'clusters/prod', identity: { group: 'apps', resource: 'deployments', namespace: 'web', name: 'api', … } })
 * // 'clusters/prod/web/apps/deployments/api.yaml'
 */
export function canonicalPath({
  targetPath,
  identity,
  extension = EXTENSION,
  paths = 'native',
}: {
  targetPath: string;
  identity: Pick<ResourceIdentity, 'group' | 'resource' | 'namespace' | 'name'>;
  /** `.sops.yaml` for a Secret encrypted with SOPS. */
  extension?: '.yaml' | '.sops.yaml';
  paths?: PathMode;
}): string {
  const { group, resource, namespace, name } = identity;
  if (!isGroupName(group) || !isResourceName(resource) || !isObjectName(name, group)) {
    throw new TypeError('canonicalPath: identity is not made of Kubernetes names');
  }
  if (namespace !== undefined && !isNamespaceName(namespace)) {
    throw new TypeError('canonicalPath: namespace is not a Kubernetes namespace name');
  }
  const prefix = normalizeTargetPath(targetPath);
  const scope = namespace ?? CLUSTER_SCOPE_FOLDER;
  if (paths === 'native')
    return joined(
      prefix,
      `${scope}/${group === '' ? '' : `${group}/`}${resource}/${fileName(name, extension)}`,
    );
  const folders = group === '' ? [scope, resource] : [scope, group, resource];
  const folder = joined(prefix, folders.map(portableFolder).join('/'));
  return `${folder}/${portableFileName(name, extension, folder.length)}`;
}

function joined(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix}/${path}`;
}

/**
 * The folder of a collection inside a target, `{target path}/{namespace|_cluster}/{group}/{resource}`
 * (core group omitted): where a collection delete applies, and the key the branch holds it under.
 */
export function collectionPath({
  targetPath,
  identity,
}: {
  targetPath: string;
  identity: Pick<ResourceIdentity, 'group' | 'resource' | 'namespace'>;
}): string {
  const { group, resource, namespace } = identity;
  if (!isGroupName(group) || !isResourceName(resource))
    throw new TypeError('collectionPath: identity is not made of Kubernetes names');
  if (namespace !== undefined && !isNamespaceName(namespace))
    throw new TypeError('collectionPath: namespace is not a Kubernetes namespace name');
  const segments = [namespace ?? CLUSTER_SCOPE_FOLDER, ...(group === '' ? [] : [group]), resource];
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

/**
 * `{name}.yaml`, or for a name whose file name would pass 255 bytes, its first 217 characters, `~`,
 * the first 32 hex digits of the sha256 of the whole name and `.yaml` (255 bytes). `~` is in no
 * Kubernetes name, so a shortened file name never equals another object's full one; the full name
 * stays in the file's `metadata.name`. Names are ASCII, so characters are bytes.
 */
export function fileName(name: string, extension = EXTENSION): string {
  if (Buffer.byteLength(name) + extension.length <= MAX_FILE_NAME_BYTES) return `${name}${extension}`;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, NAME_HASH_HEX);
  const keep = MAX_FILE_NAME_BYTES - extension.length - 1 - NAME_HASH_HEX;
  return `${name.slice(0, keep)}~${hash}${extension}`;
}

/**
 * The object a file at a canonical path (relative to its target, native or portable) holds, as a commit body names it:
 * the resource as kubectl takes it (`deployments.apps`, `configmaps`) and `namespace/name` (the
 * name alone when cluster-scoped); undefined for a file that is no object's (`.sops.yaml`). A
 * shortened file name gives its shortened name: the full one is in the file.
 * @example describeObjectPath('shop/apps/deployments/web.yaml') // 'deployments.apps shop/web'
 */
export function describeObjectPath(relativePath: string): string | undefined {
  // a portable path's segments decode to the names; a native one's are the names (they hold no `%`)
  const segments = relativePath.split('/').map((segment) => decodeSegment(segment) ?? segment);
  if (segments.length !== 3 && segments.length !== 4) return undefined;
  const folder = segments[0]!;
  const file = segments.at(-1)!;
  const name = file.replace(/(\.sops)?\.yaml$/, '');
  if (name === file || name === '') return undefined;
  const resource = segments.length === 4 ? `${segments[2]}.${segments[1]}` : segments[1]!;
  return folder === CLUSTER_SCOPE_FOLDER ? `${resource} ${name}` : `${resource} ${folder}/${name}`;
}
