import { z } from 'zod';
import { KubescribeError } from '../errors';
import { createClientNodeStatusApi } from './client-node-status-api';
import {
  COMMIT_REQUEST,
  type CommitRequestStatusApi,
  type LiveCommitRequest,
  liveCommitRequestSchema,
} from './commit-request-api';
import { type BackwardsReason, decideProjection } from './decide-projection';
import { KubeApiError } from './kube-api-error';
import {
  type CommitRequestRef,
  commitRequestRefSchema,
  type SaveOutcome,
  type SavePhase,
  type SaveStatus,
  saveStatusSchema,
} from './save-status';

type KubeApiErrorJson = ReturnType<KubeApiError['toJSON']>;

/**
 * The answer of one projection, plain JSON (it crosses the activity boundary). Only `Transient`
 * asks for the same projection to be retried later; every other result ends it.
 */
export type ProjectionResult =
  | { result: 'Projected'; resourceVersion: string; attempts: number }
  | { result: 'AlreadyProjected' }
  /** The object shows a later point of the save's life (its phase and outcome are given). */
  | { result: 'Superseded'; reason: BackwardsReason; shown: { phase: SavePhase; outcome?: SaveOutcome } }
  /** A CommitRequest of that name exists, but it is another request (another uid): never written. */
  | { result: 'Replaced'; liveUid: string }
  /** The CommitRequest was deleted: nobody is left to read the status. */
  | { result: 'Gone' }
  | { result: 'Transient'; error: KubeApiErrorJson }
  /** The server refuses (RBAC, validation) and will until someone changes something. */
  | { result: 'Refused'; error: KubeApiErrorJson };

/** The caller passed a request or status that is not valid; a bug upstream, never retried. */
export class InvalidProjection extends KubescribeError<{ issues: { path: string; message: string }[] }> {
  static readonly code = 'InvalidProjection';
  readonly code = InvalidProjection.code;
}

const DEFAULT_CONFLICT_RETRIES = 3;

// Number.isFinite-style bounds: NaN or Infinity would turn the retry or timeout bound off silently.
const tuningSchema = z.strictObject({
  conflictRetries: z.int().min(0).max(20).default(DEFAULT_CONFLICT_RETRIES),
  requestTimeoutMs: z.int().min(1).max(600_000).optional(),
});

type Connection =
  | { kubeconfig: string; client?: never }
  | { client: CommitRequestStatusApi; kubeconfig?: never };

/**
 * Projects a save's status onto its CommitRequest through the status subresource, keyed by the
 * request's uid: a same-named replacement is never written, a status never moves backwards
 * (decided against what the server shows), and a 409 re-reads and retries at most
 * `conflictRetries` times. Safe to repeat: the same projection again is `AlreadyProjected`.
 *
 * @param kubeconfig the kubeconfig content to connect with (client-node), or
 * @param client any `CommitRequestStatusApi`
 * @param request namespace, name and uid of the CommitRequest
 * @param status the save status to show
 * @param conflictRetries how many 409s to absorb, default 3
 * @example await projectSaveStatus({ kubeconfig, request: { namespace: 'team-a', name: 'save-1', uid }, status })
 */
export async function projectSaveStatus(
  args: Connection & {
    request: CommitRequestRef;
    status: SaveStatus;
    conflictRetries?: number;
    requestTimeoutMs?: number;
  },
): Promise<ProjectionResult> {
  const request = parseInput(commitRequestRefSchema, args.request, 'request');
  const status = parseInput(saveStatusSchema, args.status, 'status');
  const { conflictRetries, requestTimeoutMs } = parseInput(
    tuningSchema,
    { conflictRetries: args.conflictRetries, requestTimeoutMs: args.requestTimeoutMs },
    'options',
  );
  const api =
    args.client ??
    (await createClientNodeStatusApi({
      kubeconfig: args.kubeconfig,
      ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    }));
  try {
    return await projectWithRetries(api, request, status, conflictRetries);
  } catch (thrown) {
    if (!(thrown instanceof KubeApiError)) throw thrown;
    if (thrown.data.kind === 'not-found') return { result: 'Gone' };
    if (thrown.data.kind === 'refused') return { result: 'Refused', error: thrown.toJSON() };
    return { result: 'Transient', error: thrown.toJSON() };
  }
}

async function projectWithRetries(
  api: CommitRequestStatusApi,
  request: CommitRequestRef,
  status: SaveStatus,
  conflictRetries: number,
): Promise<ProjectionResult> {
  const { namespace, name } = request;
  for (let attempt = 1; ; attempt += 1) {
    const live = readLive(await api.readStatus({ namespace, name }));
    if (live.metadata.uid !== request.uid) return { result: 'Replaced', liveUid: live.metadata.uid };
    const shown = saveStatusSchema.safeParse(live.status);
    const decision = decideProjection({ live: shown.success ? shown.data : undefined, next: status });
    if (decision.decision === 'AlreadyProjected') return { result: 'AlreadyProjected' };
    if (decision.decision === 'Backwards' && shown.success) {
      const { phase, outcome } = shown.data;
      return {
        result: 'Superseded',
        reason: decision.reason,
        shown: { phase, ...(outcome ? { outcome } : {}) },
      };
    }
    try {
      const written = readLive(
        await api.replaceStatus({
          namespace,
          name,
          body: {
            apiVersion: `${COMMIT_REQUEST.group}/${COMMIT_REQUEST.version}`,
            kind: COMMIT_REQUEST.kind,
            // The uid is a precondition too: a replacement created between our read and write gets a 409.
            metadata: { name, namespace, uid: request.uid, resourceVersion: live.metadata.resourceVersion },
            status,
          },
        }),
      );
      return { result: 'Projected', resourceVersion: written.metadata.resourceVersion, attempts: attempt };
    } catch (thrown) {
      const conflict = thrown instanceof KubeApiError && thrown.data.kind === 'conflict';
      if (!conflict || attempt > conflictRetries) throw thrown;
    }
  }
}

function readLive(body: unknown): LiveCommitRequest {
  const parsed = liveCommitRequestSchema.safeParse(body);
  if (!parsed.success) {
    throw new KubeApiError('the Kubernetes API answered with something that is not a CommitRequest', {
      kind: 'transient',
      reason: 'UnexpectedAnswer',
    });
  }
  return parsed.data;
}

function parseInput<T>(schema: z.ZodType<T, unknown>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: [field, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new InvalidProjection(
    `invalid ${field}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    {
      issues,
    },
  );
}
