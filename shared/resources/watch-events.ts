import { z } from 'zod';
import type { Change, Ignored, NormalizeResult, NormalizeTarget } from './change';
import { PayloadInvalid, type PayloadIssue } from './errors';
import { latestFieldManager } from './exclusion';
import { formatPath, issuesFrom } from './issues';
import { isBeingDeleted, kubeObjectSchema, objectIdentity } from './kube-object';
import { isResourceName } from './names';
import { toChange } from './to-change';

const authorSchema = z.strictObject({
  username: z.string().min(1).max(256),
  uid: z.string().max(256).optional(),
  groups: z.array(z.string().max(256)).max(256).optional(),
});

/** One watch event as the `events` route takes it: the watch type, the plural resource, the object. */
export const watchEventSchema = z.strictObject({
  type: z.enum(['ADDED', 'MODIFIED', 'DELETED']),
  resource: z.string().refine(isResourceName, 'must be a plural resource name such as "deployments"'),
  object: kubeObjectSchema,
  author: authorSchema.optional(),
});

/** The body of `POST /api/v1/targets/{target}/events`. */
export const watchEventsBodySchema = z.strictObject({ events: z.array(watchEventSchema) });

export type WatchEventsBody = z.input<typeof watchEventsBodySchema>;

/**
 * Normalizes the `events` route body. ADDED and MODIFIED upsert; DELETED, or any object carrying
 * `metadata.deletionTimestamp`, deletes. Sensitive kinds are ignored with a reason. A body that does
 * not match the schema, or an object too deep or too large to record, throws `PayloadInvalid` and
 * nothing of it is used.
 */
export function normalizeWatchEvents({
  body,
  target,
}: {
  body: unknown;
  target: NormalizeTarget;
}): NormalizeResult {
  const parsed = watchEventsBodySchema.safeParse(body);
  if (!parsed.success) throw new PayloadInvalid('events body', issuesFrom(parsed.error));
  const changes: Change[] = [];
  const ignored: Ignored[] = [];
  const issues: PayloadIssue[] = [];
  parsed.data.events.forEach((event, index) => {
    const identity = objectIdentity(event.object, event.resource);
    const deleting = event.type === 'DELETED' || isBeingDeleted(event.object);
    const manager = event.type === 'DELETED' ? undefined : latestFieldManager(event.object);
    const excluded = target.excluded?.({
      users: event.author ? [event.author.username] : [],
      groups: event.author?.groups ?? [],
      ...(manager === undefined ? {} : { fieldManager: manager }),
    });
    if (excluded) {
      ignored.push({
        reason: 'excluded',
        message: excluded,
        index,
        identity,
      });
      return;
    }
    const result = toChange({
      identity,
      operation: deleting ? 'delete' : 'upsert',
      object: event.object,
      author: event.author,
      resourceVersion: event.object.metadata.resourceVersion,
      created: event.type === 'ADDED',
      target,
      index,
    });
    if ('change' in result) changes.push(result.change);
    else if ('ignored' in result) ignored.push(result.ignored);
    else {
      const { path, message } = result.outOfBounds;
      issues.push({ path: formatPath(['events', index, 'object', ...path]), message });
    }
  });
  if (issues.length > 0) throw new PayloadInvalid('events body', issues);
  return { changes, ignored };
}
