import { z } from 'zod';
import { checkReadOnly } from '../../api/auth';
import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import { readJson } from '../../api/request';
import { PART_STATE_BYTES, SNAPSHOT_RECORD_PARTS } from '../../api/snapshot-parts';
import { FIELD_CHARS } from '../../branch';
import { payloadRefOf } from '../../payloads';
import type { SnapshotPartPayload } from '../../payloads/snapshot-part';
import {
  admissionResponse,
  type Change,
  type Exclusion,
  exclusionCheck,
  type Ignored,
  type NormalizeResult,
  type NormalizeTarget,
  normalizeAdmissionReview,
  normalizeAuditEvents,
  normalizeSnapshot,
  normalizeWatchEvents,
  REQUEST_RENDERED_BYTES,
  snapshotScopeSchema,
} from '../../resources';
import { emit } from '../../telemetry/bus';
import type { IntakeKind } from '../../telemetry/occurrences';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import { acceptChanges } from './accept-changes';
import type { BranchGateway } from './branch-gateway';
import { type BranchHandle, branchHandle } from './branch-handle';
import { type NotRecorded, notRecordedCount } from './not-recorded';
import { normalized } from './payload-errors';
import { pathParam, type RouteRequest } from './route-request';
import { checkPartRoom } from './snapshot-part-room';
import { submitSave } from './submit-save';
import { accessTarget, authenticate, targetFor } from './target-access';

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
  const source = authenticate(runtime, request);
  const target = targetFor(runtime, source, request.params.target ?? '', request.at);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const excluded = exclusionCheck([
    ...(target.config.exclude
      ? [{ rule: target.config.exclude, from: `target "${target.config.name}"` }]
      : []),
    ...sourceExclusion(runtime, source.name),
  ]);
  const result = normalized(how.payload, () =>
    how.normalize({ body, target: { ...normalizeTarget(target), ...(excluded ? { excluded } : {}) } }),
  );
  const branch = branchHandle(runtime, gateway, target);
  const objectsMissingFor =
    how.attribution === 'audit' && result.changes.length > 0
      ? (await branch.read())?.branch.notRecorded?.[target.config.name]?.auditObjectsMissing?.resource
      : undefined;
  const counted = notRecordedCount({
    ignored: result.ignored,
    recorded: result.changes,
    ...(objectsMissingFor === undefined ? {} : { objectsMissingFor }),
  });
  const { recorded, refused } = await acceptChanges({
    runtime,
    branch,
    changes: result.changes,
    ...(counted ? { counted } : {}),
    attribution: how.attribution,
    at: request.at,
  });
  reportReceived(target, how.attribution, recorded, result.ignored);
  runtime.notRecordedLog.note(
    [...result.ignored, ...refused].map(({ reason, message }) => ({
      target: target.config.name,
      source: source.name,
      reason,
      message,
    })),
    runtime.nowMs(),
  );
  return accepted(how.status, recorded, result.ignored, target, refused);
}

/** `POST /api/v1/targets/{target}/snapshots`: a complete scoped snapshot in one body. */
export async function postSnapshot({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const snapshot = normalized('snapshot', () => normalizeSnapshot({ body, target: normalizeTarget(target) }));
  const branch = branchHandle(runtime, gateway, target);
  const part = await storePart(runtime, branch, partPayload(snapshot.changes), request.at);
  await branch.apply(request.at, [
    {
      type: 'ApplySnapshot',
      at: request.at,
      target: target.config.name,
      scope: snapshot.scope,
      revision: snapshot.revision,
      payloadRef: part.payloadRef,
      bytes: part.bytes,
      objects: snapshot.changes.length,
    },
  ]);
  await branch.wake();
  reportReceived(target, 'snapshot', snapshot.changes, snapshot.ignored);
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
  const snapshotId = pathParam(request, 'id', snapshotIdSchema, 'snapshot id');
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const objects = z.looseObject({ objects: z.unknown() }).safeParse(body);
  // A part has no scope or revision of its own; those come with `complete`.
  const snapshot = normalized('snapshot part', () =>
    normalizeSnapshot({
      body: { revision: 'part', objects: objects.success ? objects.data.objects : body },
      target: normalizeTarget(target),
    }),
  );
  const branch = branchHandle(runtime, gateway, target);
  const payload = partPayload(snapshot.changes);
  const part = await storePart(runtime, branch, payload, request.at, async () =>
    checkPartRoom({
      state: await branch.read(),
      target: target.config.name,
      snapshotId,
      payloadRef: payloadRefOf(Buffer.from(payload.text, 'utf8')),
      limits: runtime.loaded.config.limits,
      branchName: target.config.branch,
      at: request.at,
    }),
  );
  await branch.signal('snapshot-part', {
    at: request.at,
    snapshotId,
    target: target.config.name,
    payloadRef: part.payloadRef,
    bytes: part.bytes,
    objects: snapshot.changes.length,
  });
  reportReceived(target, 'snapshot-part', snapshot.changes, snapshot.ignored);
  return accepted(202, snapshot.changes, snapshot.ignored, target);
}

/** The completion's body, `maxParts` being the configured parts a snapshot may have (`limits.snapshotParts`). */
const completeSchema = (maxParts: number) =>
  z.strictObject({
    scope: snapshotScopeSchema.optional(),
    revision: z.string().min(1).max(FIELD_CHARS.snapshotRevision),
    /** How many parts were sent; the snapshot is applied once that many distinct parts arrived. */
    parts: z.number().int().positive().max(maxParts).optional(),
  });

/** `POST /api/v1/targets/{target}/snapshots/{id}/complete`: every part has arrived; apply the snapshot. */
export async function completeSnapshot(
  { runtime, gateway }: Deps,
  request: RouteRequest,
): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const snapshotId = pathParam(request, 'id', snapshotIdSchema, 'snapshot id');
  const body = completeSchema(runtime.loaded.config.limits.snapshotParts).safeParse(
    await readJson(request.body, runtime.bodyLimitBytes),
  );
  if (!body.success) {
    throw new ApiError(
      'invalid-input',
      "The completion needs the snapshot's revision and, optionally, its scope and part count.",
      {
        issues: body.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      },
    );
  }
  const branch = branchHandle(runtime, gateway, target);
  await branch.signal('snapshot-complete', {
    at: request.at,
    snapshotId,
    target: target.config.name,
    settings: branch.settings(request.at),
    scope: body.data.scope ?? {},
    revision: body.data.revision,
    ...(body.data.parts === undefined ? {} : { parts: body.data.parts }),
  });
  await branch.wake();
  return { status: 202, body: { snapshot: snapshotId, branch: target.config.branch } };
}

/**
 * `POST /api/v1/admission`: a validating webhook's AdmissionReview. Always allowed (it never blocks
 * the cluster); the CREATE of a CommitRequest registers a save authored by the requesting user.
 */
export async function postAdmission({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const source = authenticate(runtime, request);
  checkReadOnly(source);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const review = normalized('AdmissionReview', () => normalizeAdmissionReview({ body }));
  const save = review.save;
  const answer = admissionResponse(review.uid);
  if (!save) return { status: 200, body: answer };
  try {
    const target = targetFor(runtime, source, save.target, request.at);
    await submitSave(
      branchHandle(runtime, gateway, target),
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
                cluster: source.name,
                namespace: save.commitRequest.namespace ?? 'default',
                name: save.commitRequest.name,
              },
            }),
      },
      request.at,
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

/** The `exclude` rules of the source that sent a request, if it has any. */
function sourceExclusion(runtime: AppRuntime, name: string): { rule: Exclusion; from: string }[] {
  const rule = runtime.loaded.config.sources.find((source) => source.name === name)?.exclude;
  return rule ? [{ rule, from: `source "${name}"` }] : [];
}

export function normalizeTarget(target: ResolvedTarget): NormalizeTarget {
  return {
    path: target.config.path,
    paths: target.config.paths,
    sensitiveResources: target.sensitiveResources,
    renderBudget: { leftBytes: REQUEST_RENDERED_BYTES },
    ...(target.encryptSecret ? { encryptSecret: target.encryptSecret } : {}),
    ...(target.encryptionProblem ? { encryptionProblem: target.encryptionProblem.message } : {}),
  };
}

/** A snapshot's (or part's) files as the one payload that stores them, and their bytes. */
function partPayload(changes: readonly Change[]): { text: string; bytes: number; items: number } {
  const payload: SnapshotPartPayload = { files: [], deletes: [] };
  let bytes = 0;
  for (const change of changes) {
    if (change.content === undefined) payload.deletes.push(change.path);
    else {
      payload.files.push({ path: change.path, content: change.content });
      bytes += Buffer.byteLength(change.content);
    }
  }
  return { text: JSON.stringify(payload), bytes, items: Math.max(1, changes.length) };
}

// A part's reference, or a whole snapshot's record and pending write: at most this much more state.
const SNAPSHOT_STATE_BYTES = (SNAPSHOT_RECORD_PARTS + 1) * PART_STATE_BYTES;

/** Stores a payload once the branch can take it (and `check`, when given, refuses nothing). */
async function storePart(
  runtime: AppRuntime,
  branch: BranchHandle,
  payload: { text: string; bytes: number; items: number },
  at: string,
  check?: () => Promise<void>,
): Promise<{ payloadRef: string; bytes: number }> {
  await branch.checkAdmission(
    { bytes: payload.bytes, items: payload.items, stateBytes: SNAPSHOT_STATE_BYTES },
    at,
  );
  await check?.();
  return { payloadRef: await runtime.payloads.put(payload.text), bytes: payload.bytes };
}

/** Tells operators what a payload held, once its changes are durable. */
export function reportReceived(
  target: ResolvedTarget,
  intake: IntakeKind,
  changes: readonly Change[],
  ignored: readonly Ignored[],
): void {
  const byReason: Record<string, number> = {};
  for (const { reason } of ignored) byReason[reason] = (byReason[reason] ?? 0) + 1;
  emit({
    type: 'ChangesReceived',
    target: target.config.name,
    intake,
    accepted: changes.length,
    ignored: byReason,
  });
}

function accepted(
  status: number,
  changes: readonly Change[],
  ignored: readonly Ignored[],
  target: ResolvedTarget,
  refused: readonly NotRecorded[] = [],
): ApiResponse {
  return {
    status,
    body: {
      accepted: changes.length,
      ignored: ignored.length,
      ...(refused.length > 0 ? { refused: refused.length } : {}),
      branch: target.branch.key,
      ...(ignored.length > 0
        ? { ignoredReasons: ignored.map(({ reason, message, index }) => ({ reason, message, index })) }
        : {}),
      // Each refused change is also among the target's refused writes (`GET …/targets/{target}`).
      ...(refused.length > 0 ? { refusedReasons: refused } : {}),
    },
  };
}
