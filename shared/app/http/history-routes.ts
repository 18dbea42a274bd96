import { z } from 'zod';
import { ApiError, type ApiResponse } from '../../api/errors';
import { driverSteps } from '../driver/driver-history';
import type { AppRuntime } from '../runtime/app-runtime';
import type { BranchGateway } from './branch-gateway';
import type { RouteRequest } from './route-request';
import { readTarget } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

const MAX_STEPS = 200;
const limitSchema = z
  .string()
  .regex(/^[0-9]{1,3}$/, `must be a whole number from 1 to ${MAX_STEPS}`)
  .transform(Number)
  .refine((limit) => limit >= 1 && limit <= MAX_STEPS, `must be from 1 to ${MAX_STEPS}`);

/**
 * `GET /api/v1/targets/{target}/history?limit=`: the recent steps of the target's branch driver,
 * newest first (50 by default, at most 200), read from the durable host's history of its current
 * execution. Empty when no driver has run yet.
 */
export async function getHistory({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = readTarget(runtime, request);
  const limitText = request.query('limit');
  const limit = limitText === null ? { success: true as const, data: 50 } : limitSchema.safeParse(limitText);
  if (!limit.success) {
    throw new ApiError('invalid-input', 'The history limit is not valid.', {
      issues: [{ path: 'limit', message: limit.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  const history = await gateway.driverHistory(target.branch.key);
  const steps = driverSteps(history ?? [])
    .reverse()
    .slice(0, limit.data);
  return {
    status: 200,
    body: { target: target.config.name, branch: target.config.branch, steps },
  };
}
