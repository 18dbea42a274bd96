import {
  type AuthenticatedSource,
  authenticateSource,
  checkReadAccess,
  checkWriteAccess,
} from '../../api/auth';
import { ApiError } from '../../api/errors';
import { checkSameOrigin } from '../../api/same-origin';
import { emit } from '../../telemetry/bus';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import type { RouteRequest } from './route-request';

/** Authenticates the request's source (401); without auth, refuses a browser's request from another origin (403). */
export function authenticate(runtime: AppRuntime, request: RouteRequest): AuthenticatedSource {
  if (runtime.authMode === 'disabled') checkSameOrigin(request.header);
  return authenticateSource({
    authorization: request.header('authorization'),
    sources: runtime.sources,
    mode: runtime.authMode,
  });
}

/**
 * Finds the target an authenticated source names (404) and checks the source may write it (403).
 * The write counts as the source being heard from (the quiet-source alarm).
 */
export function targetFor(
  runtime: AppRuntime,
  source: AuthenticatedSource,
  name: string,
  at: string,
): ResolvedTarget {
  const target = configuredTarget(runtime, name);
  checkWriteAccess(source, name);
  if (runtime.activity.heard(source.name, Date.parse(at)))
    emit({ type: 'SourceHeardAgain', source: source.name });
  return target;
}

/** Authenticates the request's source and returns the target its path names, if the source may write it. */
export function accessTarget(runtime: AppRuntime, request: RouteRequest): ResolvedTarget {
  return targetFor(runtime, authenticate(runtime, request), request.params.target ?? '', request.at);
}

/** Authenticates the request's source and returns the target its path names, if the source may read it. */
export function readTarget(runtime: AppRuntime, request: RouteRequest): ResolvedTarget {
  const source = authenticate(runtime, request);
  const name = request.params.target ?? '';
  const target = configuredTarget(runtime, name);
  checkReadAccess(source, name);
  return target;
}

function configuredTarget(runtime: AppRuntime, name: string): ResolvedTarget {
  const target = runtime.targets.get(name);
  if (!target) throw new ApiError('target-not-found', `No target named "${name}" is configured.`);
  return target;
}
