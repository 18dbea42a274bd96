import { z } from 'zod';
import { authorizeSource } from '../../api/auth';
import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import { readJson } from '../../api/request';
import {
  admissionResponse,
  type Change,
  type Ignored,
  type NormalizeResult,
  type NormalizeTarget,
  normalizeAdmissionReview,
  normalizeAuditEvents,
  normalizeSnapshot,
  normalizeWatchEvents,
  snapshotScopeSchema,
} from '../../resources';
import type { SnapshotPartPayload } from '../activities/git-writes';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import { settingsCommands } from '../runtime/app-runtime';
import { admitChanges, checkAdmission } from './accept-changes';
import type { BranchGateway } from './branch-gateway';
import { normalized } from './payload-errors';
import type { RouteRequest } from './route-request';
import { registerSave } from './save-routes';
import { accessTarget } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

/** `POST /api/v1/targets/{target}/events`: watch events from a forwarder or any client. */
export function postEvents(deps: Deps, request: RouteRequest): Promise<ApiResponse> {
  return ingest(deps, request, {
    payload: 'events body',
    normalize: normalizeWatchEvents,
    attribution: 'watch',
    status: 202,
  });
}

/** `POST /api/v1/targets/{target}/audit`: an `audit.k8s.io/v1` EventList from the apiserver's webhook backend. */
export function postAudit(deps: Deps, request: RouteRequest): Promise<ApiResponse> {
  return ingest(deps, request, {
    payload: 'audit EventList',
    normalize: normalizeAuditEvents,
    attribution: 'audit',
    status: 200,
  });
}

/** Reads a cluster payload, normalizes it into changes, and admits them to the target's branch. */
async function ingest(
  { runtime, gateway }: Deps,
  request: RouteRequest,
  how: {
    payload: string;
    normalize: (input: { body: unknown; target: NormalizeTarget }) => NormalizeResult;
    attribution: 'audit' | 'watch';
    status: number;
  },
): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const result = normalized(how.payload, () => how.normalize({ body, target: normalizeTarget(target) }));
  await admitChanges({
    runtime,
    gateway,
    target,
    changes: result.changes,
    attribution: how.attribution,
    at: request.at,
  });
  return accepted(how.status, result.changes, result.ignored, target);
}

/** `POST /api/v1/targets/{target}/snapshots`: a complete scoped snapshot in one body. */
export async function postSnapshot({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const snapshot = normalized('snapshot', () => normalizeSnapshot({ body, target: normalizeTarget(target) }));
  const part = partPayload(snapshot.changes);
  await checkAdmission(
    gateway,
    target,
    { bytes: part.bytes, items: Math.max(1, snapshot.changes.length) },
    request.at,
  );
  const payloadRef = await runtime.payloads.put(JSON.stringify(part.payload));
  await gateway.signal(target.branch.key, 'apply', {
    commands: [
      ...settingsCommands(runtime, target, request.at),
      {
        type: 'ApplySnapshot',
        at: request.at,
        target: target.config.name,
        scope: snapshot.scope,
        revision: snapshot.revision,
        payloadRef,
        bytes: part.bytes,
        objects: snapshot.changes.length,
      },
    ],
  });
  await wakeDriver(gateway, target);
  return accepted(202, snapshot.changes, snapshot.ignored, target);
}

const snapshotIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 letters, digits, ".", "_" or "-"');

/** `POST /api/v1/targets/{target}/snapshots/{id}/parts`: one part of a large snapshot; applied only once completed. */
export async function postSnapshotPart(
  { runtime, gateway }: Deps,
  request: RouteRequest,
): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const snapshotId = parseSnapshotId(request);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const objects = z.looseObject({ objects: z.unknown() }).safeParse(body);
  // A part has no scope or revision of its own; those come with `complete`.
  const snapshot = normalized('snapshot part', () =>
    normalizeSnapshot({
      body: { revision: 'part', objects: objects.success ? objects.data.objects : body },
      target: normalizeTarget(target),
    }),
  );
  const part = partPayload(snapshot.changes);
  await checkAdmission(
    gateway,
    target,
    { bytes: part.bytes, items: Math.max(1, snapshot.changes.length) },
    request.at,
  );
  const payloadRef = await runtime.payloads.put(JSON.stringify(part.payload));
  await gateway.signal(target.branch.key, 'snapshot-part', {
    at: request.at,
    snapshotId,
    target: target.config.name,
    payloadRef,
    bytes: part.bytes,
    objects: snapshot.changes.length,
  });
  return accepted(202, snapshot.changes, snapshot.ignored, target);
}

const completeSchema = z.strictObject({
  scope: snapshotScopeSchema.optional(),
  revision: z.string().min(1).max(64),
});

/** `POST /api/v1/targets/{target}/snapshots/{id}/complete`: every part has arrived; apply the snapshot. */
export async function completeSnapshot(
  { runtime, gateway }: Deps,
  request: RouteRequest,
): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const snapshotId = parseSnapshotId(request);
  const body = completeSchema.safeParse(await readJson(request.body, runtime.bodyLimitBytes));
  if (!body.success) {
    throw new ApiError(
      'invalid-input',
      "The completion needs the snapshot's revision and, optionally, its scope.",
      {
        issues: body.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      },
    );
  }
  await gateway.signal(target.branch.key, 'snapshot-complete', {
    at: request.at,
    snapshotId,
    target: target.config.name,
    settings: settingsCommands(runtime, target, request.at),
    scope: body.data.scope ?? {},
    revision: body.data.revision,
  });
  await wakeDriver(gateway, target);
  return { status: 202, body: { snapshot: snapshotId, branch: target.config.branch } };
}

/**
 * `POST /api/v1/admission`: a validating webhook's AdmissionReview. Always allowed (it never blocks
 * the cluster); the CREATE of a CommitRequest registers a save authored by the requesting user.
 */
export async function postAdmission({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const source = authorizeSource({
    authorization: request.header('authorization'),
    sources: runtime.sources,
    mode: runtime.authMode,
  });
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const review = normalized('AdmissionReview', () => normalizeAdmissionReview({ body }));
  const save = review.save;
  const answer = admissionResponse(review.uid);
  if (!save) return { status: 200, body: answer };
  try {
    await registerSave(
      { runtime, gateway },
      { ...request, params: { target: save.target } },
      {
        id: save.id,
        ...(save.message === undefined ? {} : { message: save.message }),
        ...(save.author ? { author: save.author } : {}),
        ...(save.window === undefined ? {} : { window: save.window }),
        ...(save.whenNothingToCommit === undefined ? {} : { whenNothingToCommit: save.whenNothingToCommit }),
        ...(save.commitRequest.name === undefined
          ? {}
          : {
              commitRequest: {
                // The CommitRequest lives in the cluster that asked: its source's kubeconfig reaches it.
                cluster: source,
                namespace: save.commitRequest.namespace ?? 'default',
                name: save.commitRequest.name,
              },
            }),
      },
    );
  } catch (error) {
    // The cluster is never blocked: a save kubescribe cannot take is allowed, with the reason shown to the user.
    if (!(error instanceof ApiError)) throw error;
    return {
      status: 200,
      body: { ...answer, response: { ...answer.response, warnings: [`kubescribe: ${error.message}`] } },
    };
  }
  return { status: 200, body: answer };
}

function normalizeTarget(target: ResolvedTarget) {
  return { path: target.config.path, sensitiveResources: target.sensitiveResources };
}

function parseSnapshotId(request: RouteRequest): string {
  const parsed = snapshotIdSchema.safeParse(request.params.id);
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'The snapshot id is not valid.', {
      issues: [{ path: 'id', message: parsed.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  return parsed.data;
}

function partPayload(changes: readonly Change[]): { payload: SnapshotPartPayload; bytes: number } {
  const payload: SnapshotPartPayload = { files: [], deletes: [] };
  let bytes = 0;
  for (const change of changes) {
    if (change.content === undefined) payload.deletes.push(change.path);
    else {
      payload.files.push({ path: change.path, content: change.content });
      bytes += Buffer.byteLength(change.content);
    }
  }
  return { payload, bytes };
}

async function wakeDriver(gateway: BranchGateway, target: ResolvedTarget): Promise<void> {
  await gateway.ensureDriver({
    branchKey: target.branch.key,
    repository: target.repository.name,
    branch: target.config.branch,
  });
}

function accepted(
  status: number,
  changes: readonly Change[],
  ignored: readonly Ignored[],
  target: ResolvedTarget,
): ApiResponse {
  return {
    status,
    body: {
      accepted: changes.length,
      ignored: ignored.length,
      branch: target.branch.key,
      ...(ignored.length > 0
        ? { ignoredReasons: ignored.map(({ reason, message, index }) => ({ reason, message, index })) }
        : {}),
    },
  };
}
