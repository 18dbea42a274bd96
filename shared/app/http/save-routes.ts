import type { AuthenticatedSource } from '../../api/auth';
import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import { readJson } from '../../api/request';
import { saveStatus } from '../../branch';
import type { AppRuntime } from '../runtime/app-runtime';
import type { BranchGateway } from './branch-gateway';
import { branchHandle } from './branch-handle';
import { pathParam, type RouteRequest } from './route-request';
import { saveBodySchema, saveIdSchema, submitSave } from './submit-save';
import { accessTarget, authenticate, readTarget, targetFor } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

/** `POST /api/v1/targets/{target}/saves`: register a save (idempotent by id). */
export async function postSave({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const source = authenticate(runtime, request);
  const target = targetFor(runtime, source, request.params.target ?? '', request.at);
  const body = await readJson(request.body, runtime.bodyLimitBytes);
  const parsed = saveBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'The save does not match the contract; nothing was registered.', {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  const save = parsed.data;
  checkClusterBinding(runtime, source, save.commitRequest?.cluster);
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

/**
 * A save's status is written with the kubeconfig of the cluster it names, so a source may name only
 * its own cluster (the admission route fills in the source itself): another source's name would
 * have kubescribe write into that cluster with that cluster's credentials. Without auth there are
 * no sources to tell apart (a loopback-only setting), and any configured cluster may be named.
 */
function checkClusterBinding(
  runtime: AppRuntime,
  source: AuthenticatedSource,
  cluster: string | undefined,
): void {
  if (cluster === undefined || runtime.authMode === 'disabled' || cluster === source.name) return;
  throw new ApiError(
    'forbidden',
    `Source "${source.name}" may name only its own cluster in commitRequest.cluster ("${source.name}"): a save's status is written with the named cluster's credentials.`,
  );
}

function saveNotFound(branch: string, target: string, id: string): ApiError {
  return new ApiError('save-not-found', `Branch "${branch}" knows no save "${id}" of target "${target}".`);
}
