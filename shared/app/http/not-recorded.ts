import type { z } from 'zod';
import {
  type AdmittedChange,
  type Author,
  authorSchema,
  changeSchema,
  type RefusedChange,
} from '../../branch';
import type { ResourceIdentity } from '../../resources';

/**
 * An item of a request that is answered but not recorded (the branch cannot hold it, or a caller
 * found it cannot be applied): it is listed in the answer, counted among the target's refused
 * writes, in the metrics and the log; never dropped in silence. Build one with {@link notRecorded}
 * and pass it to `acceptChanges`, which records it in the same signal as the request's changes.
 */
export type NotRecorded = RefusedChange;

/**
 * The item `identity` as not recorded, for `reason` (a stable kebab-case code, e.g.
 * `value-out-of-bounds`) with a sentence that names the problem and never carries object data.
 */
export function notRecorded(
  identity: Partial<ResourceIdentity>,
  reason: string,
  message: string,
): NotRecorded {
  return { object: objectOf(identity), reason, message };
}

/** `apps/v1 deployments prod/web`, as commit subjects and statuses name an object. */
export function objectOf(identity: Partial<ResourceIdentity>): string {
  const apiVersion = identity.group
    ? `${identity.group}/${identity.version ?? ''}`
    : (identity.version ?? '');
  const name = identity.namespace ? `${identity.namespace}/${identity.name ?? ''}` : (identity.name ?? '');
  return [apiVersion, identity.resource, name].filter((part) => part).join(' ') || 'an object';
}

/**
 * Why the branch would refuse this change by this author, checked with the very schemas the branch
 * checks its commands with (so the two cannot drift), or undefined when it holds them.
 */
export function outOfBounds(
  identity: ResourceIdentity,
  author: Author,
  change: AdmittedChange,
): NotRecorded | undefined {
  const problem =
    firstIssue('author', authorSchema.safeParse(author)) ?? firstIssue('', changeSchema.safeParse(change));
  return problem === undefined ? undefined : notRecorded(identity, 'value-out-of-bounds', problem);
}

function firstIssue(under: string, parsed: z.ZodSafeParseResult<unknown>): string | undefined {
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (!issue) return undefined;
  const field = [under, ...issue.path.map(String)].filter((part) => part).join('.');
  return `${field}: ${issue.message}`;
}
