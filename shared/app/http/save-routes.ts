import { z } from 'zod';
import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import { readJson } from '../../api/request';
import { type BranchCommand, saveStatus } from '../../branch';
import { parseDuration } from '../../config';
import { checkSaveRules, saveMessageSchema, saveWindowSchema } from '../../resources';
import { commitAuthor } from '../../resources/commit-author';
import { type AppRuntime, settingsCommands } from '../runtime/app-runtime';
import { checkAdmission } from './accept-changes';
import type { BranchGateway } from './branch-gateway';
import type { RouteRequest } from './route-request';
import { accessTarget } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

const saveIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,256}$/, 'must be 1-256 letters, digits, ".", "_", ":" or "-"');

/** The body of `POST …/saves` (docs/api.md). */
export const saveBodySchema = z
  .strictObject({
    id: saveIdSchema,
    message: saveMessageSchema.optional(),
    author: z
      .strictObject({
        username: z.string().min(1).max(256),
        uid: z.string().optional(),
        groups: z.array(z.string()).optional(),
      })
      .optional(),
    window: saveWindowSchema.optional(),
    whenNothingToCommit: z.enum(['Resolve', 'CommitEmpty']).optional(),
    commitRequest: z
      .strictObject({
        cluster: z.string().min(1).optional(),
        namespace: z.string().min(1),
        name: z.string().min(1),
      })
      .optional(),
  })
  .superRefine(checkSaveRules);
export type SaveBody = z.infer<typeof saveBodySchema>;

/** `POST /api/v1/targets/{target}/saves`: register a save (idempotent by id). */
export async function postSave(deps: Deps, request: RouteRequest): Promise<ApiResponse> {
  accessTarget(deps.runtime, request);
  const body = await readJson(request.body, deps.runtime.bodyLimitBytes);
  const parsed = saveBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'The save does not match the contract; nothing was registered.', {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  return registerSave(deps, request, parsed.data);
}

/** Registers a save on its target's branch and wakes the driver; shared by the saves route and admission. */
export async function registerSave(
  { runtime, gateway }: Deps,
  request: RouteRequest,
  save: SaveBody,
): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  await checkAdmission(gateway, target, { bytes: 0, items: 1 }, request.at);
  const identity = commitAuthor(save.author, target.repository.committer);
  const window = save.window ?? {};
  const command: BranchCommand = {
    type: 'RegisterSave',
    at: request.at,
    saveId: save.id,
    target: target.config.name,
    author: save.author ? { ...identity, username: save.author.username } : identity,
    // A save names its author as the requester authenticated (admission) or as the client states it.
    attribution: save.author ? 'admission' : 'configured',
    ...(save.message === undefined ? {} : { message: save.message }),
    ...(window.attach === undefined ? {} : { attach: window.attach }),
    ...durationField('attachTimeoutMs', window.attachTimeout),
    ...durationField('idleTimeoutMs', window.idleTimeout),
    ...durationField('maxDurationMs', window.maxDuration),
    ...(save.whenNothingToCommit === undefined ? {} : { whenNothingToCommit: save.whenNothingToCommit }),
    ...(save.commitRequest === undefined ? {} : { request: { ...save.commitRequest, uid: save.id } }),
  };
  await gateway.signal(target.branch.key, 'apply', {
    commands: [...settingsCommands(runtime, target, request.at), command],
  });
  await gateway.ensureDriver({
    branchKey: target.branch.key,
    repository: target.repository.name,
    branch: target.config.branch,
  });
  return {
    status: 202,
    body: { id: save.id, status: `/api/v1/targets/${target.config.name}/saves/${save.id}` },
  };
}

/** `GET /api/v1/targets/{target}/saves/{id}`: the save's phase, outcome and commit. */
export async function getSave({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const id = parseSaveId(request);
  const state = await gateway.read(target.branch.key);
  const view = state ? saveStatus(state.branch, id, request.at) : undefined;
  if (!view || (view.target !== undefined && view.target !== target.config.name)) {
    throw new ApiError(
      'save-not-found',
      `Branch "${target.config.branch}" knows no save "${id}" of target "${target.config.name}".`,
    );
  }
  return { status: 200, body: { ...view, target: target.config.name, branch: target.config.branch } };
}

/** `DELETE /api/v1/targets/{target}/saves/{id}`: withdraw; the branch decides whether it still can. */
export async function deleteSave({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const id = parseSaveId(request);
  const answer = await gateway.withdraw({ branchKey: target.branch.key, saveId: id, at: request.at });
  if ('held' in answer) {
    throw new ApiError(
      'save-held',
      `Save "${id}" is ${answer.held}: it will be published and can no longer be withdrawn.`,
      {
        details: { phase: answer.held },
      },
    );
  }
  if (answer.outcome !== 'Withdrawn') {
    throw new ApiError('save-held', `Save "${id}" has already ended: ${answer.outcome}.`, {
      details: { phase: 'Resolved', outcome: answer.outcome },
    });
  }
  return { status: 200, body: { outcome: 'Withdrawn' } };
}

function parseSaveId(request: RouteRequest): string {
  const parsed = saveIdSchema.safeParse(request.params.id);
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'The save id is not valid.', {
      issues: [{ path: 'id', message: parsed.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  return parsed.data;
}

function durationField<K extends string>(key: K, text: string | undefined): Partial<Record<K, number>> {
  if (text === undefined) return {};
  const parsed = parseDuration(text);
  return parsed.ok ? ({ [key]: parsed.ms } as Partial<Record<K, number>>) : {};
}
