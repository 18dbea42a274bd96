import { z } from 'zod';
import { quickSafeParse } from '../json/quick-parse';
import type { ResourceIdentity } from './change';
import { isKindName, isNamespaceName, isObjectName, splitApiVersion } from './names';

const stringMap = z.record(z.string(), z.string());

/**
 * A Kubernetes object as clusters post it: `apiVersion`, `kind` and `metadata.name` are required and
 * checked (names as Kubernetes names, so no object can name a path outside its target); other fields
 * are kept as they are. Nothing here reads `data`, so a Secret's values never reach an error.
 */
export const kubeObjectSchema = z
  .looseObject({
    apiVersion: z.string(),
    kind: z.string().refine(isKindName, 'must be a Kubernetes kind such as "Deployment"'),
    metadata: z.looseObject({
      name: z.string().min(1, 'is required'),
      namespace: z.string().optional(),
      labels: stringMap.nullish(),
      annotations: stringMap.nullish(),
      resourceVersion: z.string().optional(),
      uid: z.string().optional(),
      deletionTimestamp: z.string().nullish(),
    }),
  })
  .superRefine((object, ctx) => {
    const apiVersion = splitApiVersion(object.apiVersion);
    if (!apiVersion) {
      ctx.addIssue({ code: 'custom', path: ['apiVersion'], message: 'must be "version" or "group/version"' });
      return;
    }
    if (object.metadata.name !== '' && !isObjectName(object.metadata.name, apiVersion.group)) {
      ctx.addIssue({
        code: 'custom',
        path: ['metadata', 'name'],
        message: 'must be a Kubernetes name (DNS-1123 subdomain: lowercase letters, digits, "-", ".")',
      });
    }
    const namespace = object.metadata.namespace;
    if (namespace !== undefined && namespace !== '' && !isNamespaceName(namespace)) {
      ctx.addIssue({
        code: 'custom',
        path: ['metadata', 'namespace'],
        message: 'must be a Kubernetes namespace name (DNS-1123 label)',
      });
    }
  });

/** `kubeObjectSchema.safeParse`, quick for the objects it plainly accepts (every object of a resync). */
export const parseKubeObject = quickSafeParse(kubeObjectSchema);

/** A checked Kubernetes object. */
export type KubeObject = z.output<typeof kubeObjectSchema>;

/**
 * The object's identity as a change names it (its namespace omitted when empty), `resource` being
 * the resource the request names. Two literals: Node 20's V8 copies an object by its slow path when
 * its fields were added one by one or by a spread, and a change's identity was such a copy (1.7 µs
 * an event, a sixth of normalizing one).
 */
export function objectIdentity(object: KubeObject, resource: string): ResourceIdentity {
  const { group, version } = splitApiVersion(object.apiVersion) ?? { group: '', version: '' };
  const namespace = object.metadata.namespace || undefined;
  const { kind } = object;
  const { name } = object.metadata;
  return namespace
    ? { group, version, kind, namespace, name, resource }
    : { group, version, kind, name, resource };
}

/** Deletion-as-intent: an object carrying `metadata.deletionTimestamp` is already being deleted. */
export function isBeingDeleted(object: KubeObject): boolean {
  return typeof object.metadata.deletionTimestamp === 'string' && object.metadata.deletionTimestamp !== '';
}
