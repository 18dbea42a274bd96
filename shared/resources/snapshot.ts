import { z } from 'zod';
import { FIELD_CHARS } from '../branch/field-limits';
import type { SnapshotScope } from '../branch/snapshot-scope';
import type { Change, Ignored, NormalizeResult, NormalizeTarget } from './change';
import { PayloadInvalid, type PayloadIssue } from './errors';
import { formatPath, issuesFrom } from './issues';
import { isBeingDeleted, type KubeObject, objectIdentity, parseKubeObject } from './kube-object';
import { isGroupName, isNamespaceName, isResourceName } from './names';
import { toChange } from './to-change';

/** Which objects a snapshot covers; omitted fields mean "all". `group: ''` is the core group. */
export const snapshotScopeSchema = z
  .strictObject({
    group: z.string().refine(isGroupName, 'must be an API group ("" for the core group)').optional(),
    resource: z.string().refine(isResourceName, 'must be a plural resource name').optional(),
    namespace: z.string().refine(isNamespaceName, 'must be a namespace name').optional(),
  })
  .superRefine((scope, ctx) => {
    // Without the group, "configmaps" could mean any group's configmaps: refuse rather than guess.
    if (scope.resource !== undefined && scope.group === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['group'],
        message: 'is required with resource ("" for the core group)',
      });
    }
  });

/**
 * A snapshot entry: a bare object when the scope names the resource, else `{resource, object}` (the
 * plural resource cannot be derived from a kind).
 */
const snapshotEntrySchema = z.union([
  z.strictObject({
    resource: z.string().refine(isResourceName, 'must be a plural resource name'),
    object: z.unknown(),
  }),
  z.looseObject({ apiVersion: z.unknown(), kind: z.unknown() }),
]);

/** The body of one `POST …/snapshots/{id}/parts`. */
export const snapshotPartSchema = z.strictObject({ objects: z.array(snapshotEntrySchema) });

/** A complete snapshot (`POST …/snapshots`, or the parts joined with the `complete` call's scope and revision). */
export const snapshotBodySchema = z.strictObject({
  scope: snapshotScopeSchema.optional(),
  revision: z.string().min(1).max(FIELD_CHARS.snapshotRevision),
  objects: z.array(snapshotEntrySchema),
});

/** A normalized snapshot: the upserts it implies, plus the scope and revision the sweep needs. */
export type SnapshotResult = NormalizeResult & { scope: SnapshotScope; revision: string };

/**
 * Normalizes a complete scoped snapshot into upserts (objects already being deleted become deletes).
 * Every object must lie inside the scope; one that does not, any malformed object, or one too deep
 * or too large to record, throws `PayloadInvalid`. The sweep of files missing from the snapshot is
 * the caller's, under the target's prune mode; this only reports what the snapshot contains.
 */
export function normalizeSnapshot({
  body,
  target,
}: {
  body: unknown;
  target: NormalizeTarget;
}): SnapshotResult {
  const parsed = snapshotBodySchema.safeParse(body);
  if (!parsed.success) throw new PayloadInvalid('snapshot', issuesFrom(parsed.error));
  const scope = parsed.data.scope ?? {};
  const issues: PayloadIssue[] = [];
  const checked: { index: number; at: PropertyKey[]; resource: string; object: KubeObject }[] = [];
  parsed.data.objects.forEach((entry, index) => {
    const wrapped = 'object' in entry && 'resource' in entry && !('apiVersion' in entry);
    const resource = wrapped ? (entry.resource as string) : scope.resource;
    const raw = wrapped ? entry.object : entry;
    const at = wrapped ? ['objects', index, 'object'] : ['objects', index];
    if (resource === undefined) {
      issues.push({
        path: formatPath(['objects', index]),
        message: 'needs {resource, object} when the scope names no resource',
      });
      return;
    }
    const object = parseKubeObject(raw);
    if (!object.success) {
      issues.push(...issuesFrom(object.error, at));
      return;
    }
    const outside = outsideScope(scope, resource, object.data);
    if (outside) issues.push({ path: formatPath(at), message: outside });
    else checked.push({ index, at, resource, object: object.data });
  });
  if (issues.length > 0) throw new PayloadInvalid('snapshot', issues);

  const changes: Change[] = [];
  const ignored: Ignored[] = [];
  for (const { index, at, resource, object } of checked) {
    const result = toChange({
      identity: objectIdentity(object, resource),
      operation: isBeingDeleted(object) ? 'delete' : 'upsert',
      object,
      resourceVersion: object.metadata.resourceVersion,
      target,
      index,
    });
    if ('change' in result) changes.push(result.change);
    else if ('ignored' in result) ignored.push(result.ignored);
    else
      issues.push({
        path: formatPath([...at, ...result.outOfBounds.path]),
        message: result.outOfBounds.message,
      });
  }
  if (issues.length > 0) throw new PayloadInvalid('snapshot', issues);
  return { changes, ignored, scope, revision: parsed.data.revision };
}

function outsideScope(scope: SnapshotScope, resource: string, object: KubeObject): string | undefined {
  const { group, namespace } = objectIdentity(object, resource);
  if (scope.group !== undefined && scope.group !== group) return 'is outside the snapshot scope (group)';
  if (scope.resource !== undefined && scope.resource !== resource)
    return 'is outside the snapshot scope (resource)';
  if (scope.namespace !== undefined && scope.namespace !== namespace)
    return 'is outside the snapshot scope (namespace)';
  return undefined;
}
