import { authenticateSource, checkWriteAccess } from '../../api/auth';
import { ApiError } from '../../api/errors';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import type { RouteRequest } from './route-request';

/**
 * Authenticates the request's source (401), finds the target it names (404) and checks the source
 * may write it (403). Returns the target.
 */
export function accessTarget(runtime: AppRuntime, request: RouteRequest): ResolvedTarget {
  const name = request.params.target ?? '';
  const source = authenticateSource({
    authorization: request.header('authorization'),
    sources: runtime.sources,
    mode: runtime.authMode,
  });
  const target = runtime.targets.get(name);
  if (!target) throw new ApiError('target-not-found', `No target named "${name}" is configured.`);
  checkWriteAccess(source, name);
  return target;
}
