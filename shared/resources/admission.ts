import { z } from 'zod';
import { authorFromUserInfo, userInfoSchema } from './author';
import type { ChangeAuthor, Ignored } from './change';
import { type CommitRequestSpec, commitRequestSpecSchema } from './commit-request';
import { PayloadInvalid } from './errors';
import { issuesFrom } from './issues';

/** The group and plural resource of kubescribe's save resource. */
export const COMMIT_REQUEST_GROUP = 'kubescribe.dev';
export const COMMIT_REQUEST_RESOURCE = 'commitrequests';

const groupVersionKind = z.looseObject({ group: z.string(), version: z.string(), kind: z.string() });
const groupVersionResource = z.looseObject({ group: z.string(), version: z.string(), resource: z.string() });

/** The body of `POST /api/v1/admission`: an `admission.k8s.io/v1` AdmissionReview request. */
export const admissionReviewSchema = z.looseObject({
  apiVersion: z.literal('admission.k8s.io/v1'),
  kind: z.literal('AdmissionReview'),
  request: z.looseObject({
    uid: z.string().min(1),
    kind: groupVersionKind,
    resource: groupVersionResource,
    subResource: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
    userInfo: userInfoSchema,
    object: z.unknown().optional(),
    dryRun: z.boolean().nullish(),
  }),
});

const commitRequestObjectSchema = z.looseObject({
  metadata: z.looseObject({
    uid: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
  }),
  spec: z.unknown(),
});

/**
 * A save to register, from a CommitRequest created in a cluster. Same fields as the body of
 * `POST /api/v1/targets/{target}/saves`, plus the target it names; `id` is the CommitRequest's uid.
 */
export type SaveRegistration = {
  target: string;
  id: string;
  author?: ChangeAuthor;
  commitRequest: { namespace?: string; name?: string };
} & Omit<CommitRequestSpec, 'target'>;

/** What an AdmissionReview asks of kubescribe: at most one save, and the request uid to answer. */
export type AdmissionResult = { uid: string; save?: SaveRegistration; ignored: Ignored[] };

/**
 * Normalizes an AdmissionReview. A CREATE of a `kubescribe.dev` CommitRequest that is not a dry run
 * registers a save whose author is `request.userInfo`; everything else is ignored with a reason. A
 * CommitRequest with an invalid spec is ignored (the review is still answered `allowed`), with the
 * spec's issues in the message. Only a malformed review envelope (no request uid to answer) throws
 * `PayloadInvalid`.
 */
export function normalizeAdmissionReview({ body }: { body: unknown }): AdmissionResult {
  const parsed = admissionReviewSchema.safeParse(body);
  if (!parsed.success) throw new PayloadInvalid('AdmissionReview', issuesFrom(parsed.error));
  const request = parsed.data.request;
  const ignore = (reason: Ignored['reason'], message: string): AdmissionResult => ({
    uid: request.uid,
    ignored: [{ reason, message }],
  });
  if (
    request.resource.group !== COMMIT_REQUEST_GROUP ||
    request.resource.resource !== COMMIT_REQUEST_RESOURCE
  ) {
    return ignore(
      'not-a-commit-request',
      `${request.resource.resource}.${request.resource.group} is not a CommitRequest`,
    );
  }
  if (request.operation !== 'CREATE')
    return ignore('not-a-create', `${request.operation} of a CommitRequest saves nothing`);
  if (request.subResource) return ignore('subresource', `subresource ${request.subResource} saves nothing`);
  if (request.dryRun) return ignore('dry-run', 'dry-run request changes nothing');
  const object = commitRequestObjectSchema.safeParse(request.object);
  if (!object.success) {
    const issues = issuesFrom(object.error, ['request', 'object']).map(
      (issue) => `${issue.path}: ${issue.message}`,
    );
    return ignore('invalid-commit-request', `CommitRequest object is malformed: ${issues.join('; ')}`);
  }
  const uid = object.data.metadata.uid;
  if (!uid) return ignore('no-object-uid', 'CommitRequest has no metadata.uid to identify the save');
  const spec = commitRequestSpecSchema.safeParse(object.data.spec);
  if (!spec.success) {
    const issues = issuesFrom(spec.error, ['spec']).map((issue) => `${issue.path}: ${issue.message}`);
    return ignore('invalid-commit-request', `CommitRequest is invalid: ${issues.join('; ')}`);
  }
  const { target, ...policy } = spec.data;
  const author = authorFromUserInfo(request.userInfo);
  const name = object.data.metadata.name || request.name || undefined;
  const namespace = object.data.metadata.namespace || request.namespace || undefined;
  return {
    uid: request.uid,
    save: {
      target,
      id: uid,
      ...policy,
      ...(author ? { author } : {}),
      commitRequest: { ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) },
    },
    ignored: [],
  };
}

/** The answer to an AdmissionReview: always allowed, echoing the request uid, so kubescribe never blocks the cluster. */
export function admissionResponse(uid: string): {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  response: { uid: string; allowed: true };
} {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } };
}
