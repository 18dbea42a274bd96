import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import { readJson } from '../../api/request';
import { saveStatus } from '../../branch';
import type { AppRuntime } from '../runtime/app-runtime';
import type { BranchGateway } from './branch-gateway';
import { branchHandle } from './branch-handle';
import { pathParam, type RouteRequest } from './route-request';
import { saveBodySchema, saveIdSchema, submitSave } from './submit-save';
import { accessTarget, readTarget } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

/** `POST /api/v1/targets/{target}/saves`: register a save (idempotent by id). */
export async function postSave({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const parsed = saveBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'The save does not match the contract; nothing was registered.', {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  const save = parsed.data;
  await submitSave(branchHandle(runtime, gateway, target), save, request.at);
  return {
    status: 202,
    body: { id: save.id, status: `/api/v1/targets/${target.config.name}/saves/${save.id}` },
  };
}

/**
 * `GET /api/v1/targets/{target}/saves/{id}`: the save's phase, outcome and commit. Read past the
 * admission cache: a client reads back what its own POST or DELETE just decided (a save withdrawn
 * a moment ago shows `Withdrawn`, not its old phase or 404).
 */
export async function getSave({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = readTarget(runtime, request);
  const id = pathParam(request, 'id', saveIdSchema, 'save id');
  const state = await gateway.readNow(target.branch.key);
  const view = state ? saveStatus(state.branch, id, request.at, target.config.name) : undefined;
  if (!view) throw saveNotFound(target.config.branch, target.config.name, id);
  return { status: 200, body: { ...view, target: target.config.name, branch: target.config.branch } };
}

/** `DELETE /api/v1/targets/{target}/saves/{id}`: withdraw; the branch decides whether it still can. */
export async function deleteSave({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const id = pathParam(request, 'id', saveIdSchema, 'save id');
  const answer = await branchHandle(runtime, gateway, target).withdraw(id, request.at);
  if ('notFound' in answer) throw saveNotFound(target.config.branch, target.config.name, id);
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

function saveNotFound(branch: string, target: string, id: string): ApiError {
  return new ApiError('save-not-found', `Branch "${branch}" knows no save "${id}" of target "${target}".`);
}
