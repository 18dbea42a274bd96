import type { z } from 'zod';
import {
  type AdmittedChange,
  type Author,
  authorSchema,
  type CommandOf,
  changeSchema,
  FIELD_CHARS,
  NOT_RECORDED_EXAMPLES,
  type RefusedChange,
} from '../../branch';
import { cutTo } from '../../branch/field-limits';
import { checkWritePath } from '../../git/check-write-path';
import { quickSafeParse } from '../../json/quick-parse';
import type { Change, Ignored, ResourceIdentity } from '../../resources';

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
 * Why the branch would refuse a change by an author, checked with the very schemas the branch
 * checks its commands with (so the two cannot drift), and its path with the check Git writes are
 * held to (a change kept in a run is read back only at publication, past the answer), or
 * undefined when it holds them.
 */
export type OutOfBounds = (
  identity: ResourceIdentity,
  author: Author,
  change: AdmittedChange,
) => NotRecorded | undefined;

const parseAuthor = quickSafeParse(authorSchema);
const parseChange = quickSafeParse(changeSchema);

/**
 * An `OutOfBounds` for the changes of one request. Each change's author is checked with it: a
 * quick parse of an author costs less than the key a cache of verdicts would need.
 */
export function boundsChecker(targetPath: string): OutOfBounds {
  return (identity, author, change) => {
    const checked = checkWritePath({ path: change.path, inside: targetPath });
    const problem =
      firstIssue('author', parseAuthor(author)) ??
      firstIssue('', parseChange(change)) ??
      ('refused' in checked ? checked.refused : undefined);
    return problem === undefined ? undefined : notRecorded(identity, 'value-out-of-bounds', problem);
  };
}

function firstIssue(under: string, parsed: z.ZodSafeParseResult<unknown>): string | undefined {
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (!issue) return undefined;
  const field = [under, ...issue.path.map(String)].filter((part) => part).join('.');
  return `${field}: ${issue.message}`;
}

/** What a `CountNotRecorded` carries: a request's events not recorded, counted by reason. */
export type NotRecordedCount = Omit<CommandOf<'CountNotRecorded'>, 'type' | 'at' | 'target'>;

/**
 * The count of a request's `ignored` events (excluded ones among them) with a few examples (the
 * latest of each reason first), and for an audit request, what its events showed of the policy:
 * the latest write event that carried no object, and the resources `recorded` (named only while
 * the target's status says their objects were missing, `objectsMissingFor`). Undefined: nothing to count.
 */
export function notRecordedCount({
  ignored,
  recorded,
  objectsMissingFor,
}: {
  ignored: readonly Ignored[];
  recorded: readonly Change[];
  objectsMissingFor?: string;
}): NotRecordedCount | undefined {
  const counts: Record<string, number> = {};
  const latest = new Map<string, NotRecorded>();
  let objectless: { level: 'Metadata' | 'Request'; resource: string } | undefined;
  for (const item of ignored) {
    counts[item.reason] = (counts[item.reason] ?? 0) + 1;
    latest.delete(item.reason);
    // Cut here, not only by the branch: an audit event's objectRef is any size, and the signal is bounded.
    const example = notRecorded(item.identity ?? {}, item.reason, item.message);
    latest.set(item.reason, {
      ...example,
      object: cutTo(FIELD_CHARS.refusal)(example.object),
      message: cutTo(FIELD_CHARS.refusal)(example.message),
    });
    // audit.k8s.io/v1 Level: Metadata carries no object, Request only the request's; a
    // RequestResponse event without one is not the policy's doing.
    const level = item.auditLevel;
    if (level === 'Metadata' || level === 'Request') {
      objectless = { level, resource: resourceOf(item.identity ?? {}) };
    }
  }
  const withObjects =
    objectsMissingFor !== undefined &&
    recorded.some((change) => resourceOf(change.identity) === objectsMissingFor)
      ? [objectsMissingFor]
      : [];
  if (ignored.length === 0 && withObjects.length === 0) return undefined;
  return {
    counts,
    examples: [...latest.values()].slice(-NOT_RECORDED_EXAMPLES),
    ...(objectless || withObjects.length > 0
      ? { audit: { ...(objectless ? { objectless } : {}), withObjects } }
      : {}),
  };
}

/** `apps/deployments`, `configmaps`: the resource a condition names; cut to what the branch holds. */
export function resourceOf(identity: Partial<ResourceIdentity>): string {
  const resource = identity.group
    ? `${identity.group}/${identity.resource ?? ''}`
    : (identity.resource ?? '');
  return resource.slice(0, 320) || 'an unnamed resource';
}
