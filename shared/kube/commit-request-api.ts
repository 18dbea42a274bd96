import { z } from 'zod';

/** The CommitRequest resource (`deploy/crds/commitrequest.yaml`). */
export const COMMIT_REQUEST = {
  group: 'kubescribe.dev',
  version: 'v1alpha1',
  plural: 'commitrequests',
  kind: 'CommitRequest',
} as const;

/** What the projection needs of a CommitRequest read from the server; everything else is ignored. */
export const liveCommitRequestSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string(),
    uid: z.string(),
    resourceVersion: z.string(),
  }),
  status: z.unknown().optional(),
});

export type LiveCommitRequest = z.infer<typeof liveCommitRequestSchema>;

/** The status body written to `/status`: the object's identity, its version precondition, the new status. */
export interface CommitRequestStatusWrite {
  apiVersion: `${typeof COMMIT_REQUEST.group}/${typeof COMMIT_REQUEST.version}`;
  kind: typeof COMMIT_REQUEST.kind;
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string };
  status: unknown;
}

/**
 * The two calls the projection makes on the Kubernetes API, so the projection's rules can be run
 * against any implementation. Failures are thrown as `KubeApiError`.
 */
export interface CommitRequestStatusApi {
  /** `GET .../namespaces/{namespace}/commitrequests/{name}/status` (the whole object). */
  readStatus(args: { namespace: string; name: string }): Promise<unknown>;
  /** `PUT .../namespaces/{namespace}/commitrequests/{name}/status`. */
  replaceStatus(args: { namespace: string; name: string; body: CommitRequestStatusWrite }): Promise<unknown>;
}
