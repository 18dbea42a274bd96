import { z } from 'zod';
import { quickSafeParse } from '../json/quick-parse';
import { authorFromUserInfo, userInfoSchema } from './author';
import { canonicalPath, collectionPath } from './canonical-path';
import type { Change, Ignored, NormalizeResult, NormalizeTarget, ResourceIdentity } from './change';
import { PayloadInvalid, type PayloadIssue } from './errors';
import { type ChangeOrigin, latestFieldManager } from './exclusion';
import { formatPath, issuesFrom } from './issues';
import { isBeingDeleted, type KubeObject, objectIdentity, parseKubeObject } from './kube-object';
import { isGroupName, isNamespaceName, isObjectName, isResourceName, isVersionName } from './names';
import { subresourceNotRecorded } from './recorded-requests';
import { collectionDeletePayload, replicasPayload } from './scoped-changes';
import { readSelectors } from './selectors';
import { sensitivity } from './sensitive';
import { isRefused, sensitiveIgnored, toChange } from './to-change';

const objectRefSchema = z.object({
  resource: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  apiGroup: z.string().optional(),
  apiVersion: z.string().optional(),
  resourceVersion: z.string().optional(),
  subresource: z.string().optional(),
});

/**
 * One `audit.k8s.io/v1` Event: the fields kubescribe reads are typed; the others (timestamps,
 * source IPs, annotations) are dropped rather than copied, as nothing reads them. The objects stay
 * as posted (`unknown`) until `kubeObjectSchema` checks the one that is recorded.
 */
export const auditEventSchema = z.object({
  auditID: z.string(),
  stage: z.string(),
  verb: z.string(),
  requestURI: z.string(),
  /** The policy level the event was recorded at: below `RequestResponse` it carries no object. */
  level: z.string().optional(),
  user: userInfoSchema,
  impersonatedUser: userInfoSchema.nullish(),
  objectRef: objectRefSchema.nullish(),
  /** The client's `User-Agent`, for `exclude.userAgents`. */
  userAgent: z.string().optional(),
  responseStatus: z.object({ code: z.number().int().optional() }).nullish(),
  requestObject: z.unknown().optional(),
  responseObject: z.unknown().optional(),
});

/** The body of the `audit` route: an `audit.k8s.io/v1` EventList as the apiserver's webhook backend posts it. */
export const auditEventListSchema = z.object({
  apiVersion: z.literal('audit.k8s.io/v1'),
  kind: z.literal('EventList'),
  // Go encodes an empty list as null.
  items: z.array(auditEventSchema).nullish(),
});

const parseEventList = quickSafeParse(auditEventListSchema);

type AuditEvent = z.output<typeof auditEventSchema>;
type ObjectRef = z.output<typeof objectRefSchema>;

const RECORDED_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Subresources whose `responseObject` is the whole parent object (a Pod), recorded as its update. */
const WHOLE_PARENT_SUBRESOURCES = new Set(['ephemeralcontainers', 'resize']);

/**
 * Resources whose `scale` subresource sets `spec.replicas` (k8s.io/kubernetes pkg/registry: the
 * ScaleREST of deployments, replicasets, statefulsets and replicationcontrollers). A custom
 * resource's count lives at its CustomResourceDefinition's `specReplicasPath`, unknown here.
 */
const SCALED_BY_SPEC_REPLICAS = new Set([
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  '/replicationcontrollers',
]);

/** An `autoscaling/v1` Scale; `spec.replicas` is `omitempty`, so a scale to zero carries none. */
const scaleSchema = z.object({
  kind: z.literal('Scale'),
  metadata: z.object({ resourceVersion: z.string().optional() }).optional(),
  spec: z.object({ replicas: z.number().int().nonnegative().max(2_147_483_647).optional() }).optional(),
});

/** A list `responseObject` of a deletecollection: the objects it deleted. */
const deletedListSchema = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string(), namespace: z.string().optional() }),
    }),
  ),
});

/**
 * Normalizes an audit EventList. Recorded: stage `ResponseComplete`, verbs create/update/patch/
 * delete/deletecollection, `responseStatus.code` < 300, not dry-run, no subresource but those of
 * `recorded-requests.ts` (`scale` as a replica count); the object comes from `responseObject`
 * (deletes take their identity from `objectRef`), the author from `impersonatedUser` else `user`. Everything else is returned in `ignored` with a reason. A
 * malformed list, or a recorded event whose object or names are malformed, throws `PayloadInvalid`:
 * nothing of the list is used.
 */
export function normalizeAuditEvents({
  body,
  target,
}: {
  body: unknown;
  target: NormalizeTarget;
}): NormalizeResult {
  const parsed = parseEventList(body);
  if (!parsed.success) throw new PayloadInvalid('audit EventList', issuesFrom(parsed.error));
  const changes: Change[] = [];
  const ignored: Ignored[] = [];
  const issues: PayloadIssue[] = [];
  (parsed.data.items ?? []).forEach((event, index) => {
    const outcome = normalizeEvent(event, index, target);
    if ('issues' in outcome) issues.push(...outcome.issues);
    else if ('change' in outcome) changes.push(outcome.change);
    else if ('changes' in outcome) changes.push(...outcome.changes);
    else ignored.push(outcome.ignored);
  });
  if (issues.length > 0) throw new PayloadInvalid('audit EventList', issues);
  return { changes, ignored };
}

type Outcome = { change: Change } | { changes: Change[] } | { ignored: Ignored } | { issues: PayloadIssue[] };

function normalizeEvent(event: AuditEvent, index: number, target: NormalizeTarget): Outcome {
  const ignore = (
    reason: Ignored['reason'],
    message: string,
    identity?: Partial<ResourceIdentity>,
  ): Outcome => ({
    ignored: { reason, message, index, auditID: event.auditID, ...(identity ? { identity } : {}) },
  });
  if (event.stage !== 'ResponseComplete')
    return ignore('stage-not-complete', `stage ${event.stage} is not persisted yet`);
  if (!RECORDED_VERBS.has(event.verb))
    return ignore('verb-not-recorded', `verb ${event.verb} is not recorded`);
  const code = event.responseStatus?.code;
  if (code === undefined || code >= 300)
    return ignore('request-failed', `request answered ${code ?? 'without a status'}`);
  if (isDryRun(event.requestURI)) return ignore('dry-run', 'dry-run request changed nothing');
  const ref = event.objectRef && ownNamespace(event.objectRef);
  if (!ref?.resource) return ignore('no-object-ref', 'event names no object');
  const refIdentity: Partial<ResourceIdentity> & { group: string } = {
    group: ref.apiGroup ?? '',
    resource: ref.resource,
  };
  if (ref.namespace) refIdentity.namespace = ref.namespace;
  if (ref.name) refIdentity.name = ref.name;
  // Before the other rules: a change the operator excluded is counted as such, whatever it is.
  const excluded = target.excluded?.(auditOrigin(event));
  if (excluded) return ignore('excluded', excluded, refIdentity);
  // Before the subresource rule: `serviceaccounts/token` answers with a token.
  const sensitive = sensitivity({
    group: refIdentity.group,
    resource: ref.resource,
    ...(ref.subresource ? { subresource: ref.subresource } : {}),
    sensitiveResources: target.sensitiveResources,
  });
  if (sensitive && isRefused(sensitive, target))
    return { ignored: sensitiveIgnored(refIdentity, sensitive, index, target.encryptionProblem) };
  const author = authorFromUserInfo(event.impersonatedUser?.username ? event.impersonatedUser : event.user);
  if (ref.subresource === 'scale' && (event.verb === 'update' || event.verb === 'patch'))
    return scaleOutcome({ event, ref, index, target, author, ignore });
  if (ref.subresource && !WHOLE_PARENT_SUBRESOURCES.has(ref.subresource))
    return ignore('subresource', subresourceNotRecorded(ref.subresource), refIdentity);
  if (event.verb === 'deletecollection')
    return collectionOutcome({ event, ref, index, target, author, ignore });
  const outcome = (result: ReturnType<typeof toChange>): Outcome => {
    if (!('outOfBounds' in result)) return result;
    // The apiserver can store such an object (a custom resource holds any JSON); refusing the list
    // would lose its whole batch, as the webhook backend does not retry a 400.
    const { reason, path, message } = result.outOfBounds;
    const at = formatPath(['items', index, 'responseObject', ...path]);
    return ignore(reason, `${at} ${message}`, result.identity);
  };

  if (event.verb === 'delete') {
    const identity = identityFromRef(ref, index);
    if ('issues' in identity) return identity;
    const kind = kindOfDeleted(event.responseObject, identity.identity);
    return outcome(
      toChange({
        identity: { ...identity.identity, kind },
        operation: 'delete',
        author,
        resourceVersion: ref.resourceVersion || undefined,
        uid: uidOfDeleted(event.responseObject) ?? ref.uid,
        target,
        index,
      }),
    );
  }

  if (event.responseObject === undefined || event.responseObject === null) {
    return {
      ignored: {
        reason: 'no-response-object',
        message: `no responseObject (audit policy level ${event.level ?? 'unknown'}): the level must be RequestResponse`,
        index,
        auditID: event.auditID,
        identity: refIdentity,
        ...(event.level ? { auditLevel: event.level } : {}),
      },
    };
  }
  if (!ref.name && !hasName(event.responseObject)) {
    // tokenreviews, subjectaccessreviews and the like: created, answered, never stored. A catch-all
    // audit policy sends them, and refusing the list would lose the apiserver's whole batch.
    return ignore(
      'unnamed-object',
      'the object has no name: a review or other resource that is never stored',
      refIdentity,
    );
  }
  const object = parseKubeObject(event.responseObject);
  if (!object.success) return { issues: issuesFrom(object.error, ['items', index, 'responseObject']) };
  const identity = objectIdentity(object.data, ref.resource);
  const mismatch = refMismatch(ref, identity, index);
  if (mismatch) return { issues: [mismatch] };
  if (isUnchanged(event, object.data)) {
    return ignore(
      'unchanged',
      `${event.verb} kept resourceVersion ${object.data.metadata.resourceVersion}`,
      identity,
    );
  }
  return outcome(
    toChange({
      identity,
      operation: isBeingDeleted(object.data) ? 'delete' : 'upsert',
      object: object.data,
      author,
      resourceVersion: object.data.metadata.resourceVersion || ref.resourceVersion || undefined,
      created: event.verb === 'create',
      target,
      index,
    }),
  );
}

/**
 * Who made the event's change for the `exclude` rules: the user and the one it impersonated (either
 * excludes it), their groups, the client, and the latest writer of the object (none for a delete,
 * as the forwarder does: the answer to a delete is the removed object or a Status).
 */
function auditOrigin(event: AuditEvent): ChangeOrigin {
  const users = [event.user, event.impersonatedUser].flatMap((user) => user ?? []);
  const manager = event.verb === 'delete' ? undefined : latestFieldManager(event.responseObject);
  return {
    users: users.flatMap((user) => (user.username ? [user.username] : [])),
    groups: users.flatMap((user) => user.groups ?? []),
    ...(manager === undefined ? {} : { fieldManager: manager }),
    ...(event.userAgent === undefined ? {} : { userAgent: event.userAgent }),
  };
}

function hasName(object: unknown): boolean {
  const metadata =
    typeof object === 'object' && object !== null ? (object as { metadata?: unknown }).metadata : undefined;
  const name =
    typeof metadata === 'object' && metadata !== null ? (metadata as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '';
}

function isDryRun(requestURI: string): boolean {
  const query = requestURI.indexOf('?');
  if (query < 0) return false;
  return new URLSearchParams(requestURI.slice(query + 1)).getAll('dryRun').includes('All');
}

/**
 * What is wrong with an event's objectRef: its group, version, resource and namespace, and its name
 * unless the request is about a whole collection (which names no object).
 */
function objectRefIssues(ref: ObjectRef, index: number, { named }: { named: boolean }): PayloadIssue[] {
  const at = (field: string) => formatPath(['items', index, 'objectRef', field]);
  const group = ref.apiGroup ?? '';
  const issues: PayloadIssue[] = [];
  if (!isGroupName(group)) issues.push({ path: at('apiGroup'), message: 'must be an API group' });
  if (!ref.apiVersion || !isVersionName(ref.apiVersion))
    issues.push({ path: at('apiVersion'), message: 'must be an API version' });
  if (!ref.resource || !isResourceName(ref.resource))
    issues.push({ path: at('resource'), message: 'must be a plural resource name' });
  if (named && (!ref.name || !isObjectName(ref.name, group)))
    issues.push({ path: at('name'), message: 'must be a Kubernetes name' });
  if (ref.namespace && !isNamespaceName(ref.namespace))
    issues.push({ path: at('namespace'), message: 'must be a namespace name' });
  return issues;
}

function identityFromRef(
  ref: ObjectRef,
  index: number,
): { identity: ResourceIdentity } | { issues: PayloadIssue[] } {
  const group = ref.apiGroup ?? '';
  const issues = objectRefIssues(ref, index, { named: true });
  if (issues.length > 0) return { issues };
  return {
    identity: {
      group,
      version: ref.apiVersion as string,
      resource: ref.resource as string,
      kind: '',
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
      name: ref.name as string,
    },
  };
}

/** The uid a delete's answer names: the Status's `details.uid`, or the object's own (finalizers pending). */
function uidOfDeleted(responseObject: unknown): string | undefined {
  const parsed = deletedAnswerSchema.safeParse(responseObject);
  if (!parsed.success) return undefined;
  return parsed.data.details?.uid || parsed.data.metadata?.uid || undefined;
}

const deletedAnswerSchema = z.looseObject({
  details: z.looseObject({ uid: z.string().max(128).optional() }).optional(),
  metadata: z.looseObject({ uid: z.string().max(128).optional() }).optional(),
});

/** A delete answers with the object (finalizers pending) or with a Status; only the former names the kind. */
function kindOfDeleted(responseObject: unknown, identity: ResourceIdentity): string {
  const parsed = parseKubeObject(responseObject);
  if (!parsed.success || parsed.data.kind === 'Status') return '';
  const { group, name } = objectIdentity(parsed.data, identity.resource);
  return group === identity.group && name === identity.name ? parsed.data.kind : '';
}

function refMismatch(
  ref: ObjectRef,
  object: { group: string; namespace?: string; name: string },
  index: number,
): PayloadIssue | undefined {
  if ((ref.apiGroup ?? '') !== object.group)
    return responseObjectIssue(index, 'is in another API group than objectRef');
  if (ref.name && ref.name !== object.name)
    return responseObjectIssue(index, 'names another object than objectRef');
  if ((ref.namespace || undefined) !== object.namespace)
    return responseObjectIssue(index, 'is in another namespace than objectRef');
  return undefined;
}

/** An issue with event `index`'s responseObject; its path formatted only when there is one. */
function responseObjectIssue(index: number, message: string): PayloadIssue {
  return { path: formatPath(['items', index, 'responseObject']), message };
}

/** An update the apiserver answered without a new resourceVersion stored nothing (a no-op update). */
function isUnchanged(event: AuditEvent, object: KubeObject): boolean {
  if (event.verb !== 'update' && event.verb !== 'patch') return false;
  const request = event.requestObject;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return false;
  const requested = (request as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
  return typeof requested === 'string' && requested !== '' && requested === object.metadata.resourceVersion;
}

/**
 * The objectRef of a Namespace as the apiserver's RequestInfo fills it: for
 * `/api/v1/namespaces/{name}` (and its `status` and `finalize` subresources) `namespace` is the
 * name too (k8s.io/apiserver pkg/endpoints/request/requestinfo.go: a path starting `namespaces/{x}`
 * sets Namespace to x). A Namespace is cluster-scoped: that namespace is dropped.
 */
function ownNamespace(ref: ObjectRef): ObjectRef {
  if (ref.resource !== 'namespaces' || (ref.apiGroup ?? '') !== '' || !ref.namespace) return ref;
  if (ref.namespace !== ref.name) return ref;
  const { namespace: _own, ...rest } = ref;
  return rest;
}

type Ignore = (reason: Ignored['reason'], message: string, identity?: Partial<ResourceIdentity>) => Outcome;
type EventContext = {
  event: AuditEvent;
  ref: ObjectRef;
  index: number;
  target: NormalizeTarget;
  author: ReturnType<typeof authorFromUserInfo>;
  ignore: Ignore;
};

/**
 * `kubectl scale` and every HorizontalPodAutoscaler decision: an update or patch of `…/scale`
 * answered with an `autoscaling/v1` Scale (a capture: `deployment-scale-subresource.json`). It
 * sets `spec.replicas` in the parent's held file when published; the file is never written from
 * the Scale alone, which holds no more of the object than its count.
 */
function scaleOutcome({ event, ref, index, target, author, ignore }: EventContext): Outcome {
  const identity = identityFromRef(ref, index);
  if ('issues' in identity) return identity;
  const parent = identity.identity;
  if (!SCALED_BY_SPEC_REPLICAS.has(`${parent.group}/${parent.resource}`)) {
    return ignore(
      'subresource',
      `subresource scale of ${parent.group ? `${parent.group}/` : ''}${parent.resource} is not recorded: only its CustomResourceDefinition knows which field holds the count`,
      parent,
    );
  }
  if (event.responseObject === undefined || event.responseObject === null)
    return ignore(
      'no-response-object',
      'no responseObject: the audit policy level must be RequestResponse',
      parent,
    );
  const scale = scaleSchema.safeParse(event.responseObject);
  if (!scale.success) return { issues: issuesFrom(scale.error, ['items', index, 'responseObject']) };
  const resourceVersion = scale.data.metadata?.resourceVersion || undefined;
  const change: Change = {
    path: canonicalPath({ targetPath: target.path, identity: parent }),
    operation: 'set-replicas',
    content: replicasPayload(scale.data.spec?.replicas ?? 0),
    identity: parent,
    ...(resourceVersion ? { resourceVersion } : {}),
    author,
  };
  return { change };
}

/**
 * A deletecollection. With the deleted objects listed in `responseObject`, each is removed. A real
 * apiserver sends it hollow (no list, whatever the policy level: `audit-deletecollection-official-
 * raw-hollow.json`), only the collection and the request's selectors; then the files of the
 * collection (the namespace's or the cluster's, the group's and resource's) that the selectors
 * match are removed, evaluated at publication against everything the branch holds by then. A
 * selector the held files cannot answer is refused, never guessed.
 */
function collectionOutcome({ event, ref, index, target, author, ignore }: EventContext): Outcome {
  const group = ref.apiGroup ?? '';
  const issues = objectRefIssues(ref, index, { named: false });
  if (issues.length > 0) return { issues };
  const collection = {
    group,
    version: ref.apiVersion as string,
    resource: ref.resource as string,
    kind: '',
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
  };
  const listed = deletedListSchema.safeParse(event.responseObject);
  if (listed.success) {
    const changes: Change[] = [];
    for (const [item, { metadata }] of listed.data.items.entries()) {
      const namespace = metadata.namespace || undefined;
      const path = formatPath(['items', index, 'responseObject', 'items', item, 'metadata']);
      if (!isObjectName(metadata.name, group))
        return { issues: [{ path, message: 'must name a Kubernetes object' }] };
      if (namespace !== collection.namespace)
        return { issues: [{ path, message: 'is in another namespace than objectRef' }] };
      const outcome = toChange({
        identity: { ...collection, name: metadata.name },
        operation: 'delete',
        author,
        target,
        index,
      });
      if ('change' in outcome) changes.push(outcome.change);
    }
    return { changes };
  }
  const where = collection.namespace ? ` in namespace ${collection.namespace}` : '';
  const reading = readSelectors(event.requestURI);
  if ('refused' in reading) {
    return ignore(
      'selector-not-evaluable',
      `${reading.refused}: not recorded; a snapshot of ${collection.resource}${where} makes the folder match the cluster`,
      collection,
    );
  }
  const change: Change = {
    path: collectionPath({ targetPath: target.path, identity: collection }),
    operation: 'delete-collection',
    content: collectionDeletePayload({
      ...(collection.namespace ? { namespace: collection.namespace } : {}),
      group,
      resource: collection.resource,
      selector: reading.selector,
    }),
    identity: { ...collection, name: '*' },
    author,
    ...(reading.text ? { selector: reading.text } : {}),
  };
  return { change };
}
