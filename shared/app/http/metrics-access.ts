import { authenticateSource } from '../../api/auth';
import { ApiError, type ApiResponse } from '../../api/errors';
import type { AppRuntime } from '../runtime/app-runtime';

/**
 * Whether a scrape of `/metrics` may be answered: always with `server.metricsAuth: none`; with
 * `token`, when it carries any source's bearer token (a read-only one is enough: metrics name
 * targets and branches, never content). Returns the refusal to answer (401), else undefined.
 */
export function metricsRefusal(runtime: AppRuntime, authorization: string | null): ApiResponse | undefined {
  if (runtime.loaded.config.server.metricsAuth !== 'token') return undefined;
  try {
    authenticateSource({ authorization, sources: runtime.sources, mode: runtime.authMode });
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.toResponse();
    throw error;
  }
}
