import { z } from 'zod';
import { checkReadOnly } from '../../api/auth';
import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import { readJson } from '../../api/request';
import { heldChangesView, publicationStatus } from '../../branch';
import type { AppRuntime } from '../runtime/app-runtime';
import type { BranchGateway } from './branch-gateway';
import { newRequestId } from './branch-handle';
import { pathParam, type RouteRequest } from './route-request';
import { publicationView } from './status-routes';
import { authenticate } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

const branchKeySchema = z
  .string()
  .regex(/^b-[0-9a-f]{24}$/, 'must be a branch key as the status shows it (b-…)');
const discardSchema = z.strictObject({ reason: z.string().trim().min(1).max(500) });

/**
 * Branches by key, for the operator: a branch no configured target names any more (its repository
 * was rebound) still holds its work, and only its key reaches it. Only a source that may write
 * every target (`targets: ["*"]`) may read or discard one.
 */
function operatorBranch({ runtime }: Deps, request: RouteRequest, writes: boolean): string {
  const source = authenticate(runtime, request);
  if (writes) checkReadOnly(source);
  if (!source.targets.includes('*')) {
    throw new ApiError(
      'forbidden',
      `Source "${source.name}" may not act on branches; that needs targets: ["*"].`,
    );
  }
  return pathParam(request, 'branch', branchKeySchema, 'branch key');
}

/** `GET /api/v1/branches/{branch}`: a branch's publication status, whether or not a target names it. */
export async function getBranch(deps: Deps, request: RouteRequest): Promise<ApiResponse> {
  const branchKey = operatorBranch(deps, request, false);
  const state = await deps.gateway.readNow(branchKey);
  if (!state) throw new ApiError('branch-not-found', `No branch "${branchKey}" has state here.`);
  const status = publicationStatus(state.branch, request.at);
  const targets = [...deps.runtime.targets.values()]
    .filter((target) => target.branch.key === branchKey)
    .map((target) => target.config.name);
  return {
    status: 200,
    body: {
      branch: branchKey,
      targets,
      publication: publicationView(status),
      heldForAttribution: heldChangesView(state.branch),
      conditions: status.conditions,
    },
  };
}

/**
 * `POST /api/v1/branches/{branch}/discard`: drops the writes the branch holds (not one being pushed)
 * and fails their saves with the operator's reason. For work held after a rebinding
 * (docs/configuration.md, "Rebinding a target"); it is never undone.
 */
export async function discardBranchWrites(deps: Deps, request: RouteRequest): Promise<ApiResponse> {
  const branchKey = operatorBranch(deps, request, true);
  const parsed = discardSchema.safeParse(await readJson(request.body, deps.runtime.bodyLimitBytes));
  if (!parsed.success) {
    throw new ApiError('invalid-input', 'A discard needs a reason; nothing was discarded.', {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  if (!(await deps.gateway.readNow(branchKey)))
    throw new ApiError('branch-not-found', `No branch "${branchKey}" has state here.`);
  await deps.gateway.signal(branchKey, 'apply', {
    requestId: newRequestId(branchKey),
    commands: [{ type: 'DiscardPendingWrites', at: request.at, reason: parsed.data.reason }],
  });
  return { status: 202, body: { branch: branchKey, status: `/api/v1/branches/${branchKey}` } };
}
