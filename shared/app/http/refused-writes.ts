import type { ApiError } from '../../api/errors';
import { emit } from '../../telemetry/bus';

// a refusal's message names the problem; an operator reads the rest in the answer itself
const MESSAGE_CHARS = 300;

/**
 * Tells operators that a request that writes was refused (4xx; 429 when intake is paused). The
 * target is named only when it is a configured one: a label never carries what a client made up.
 */
export function reportRefusal({
  route,
  method,
  target,
  knownTarget,
  error,
}: {
  route: string;
  method: string;
  target: string | undefined;
  knownTarget: (name: string) => boolean;
  error: ApiError;
}): void {
  const { status, headers } = error.toResponse();
  if (method === 'GET' || status < 400 || status >= 500) return;
  const retryAfter = headers?.['retry-after'];
  emit({
    type: 'RequestRefused',
    route,
    status,
    reason: error.code,
    message: error.message.slice(0, MESSAGE_CHARS),
    ...(target !== undefined && knownTarget(target) ? { target } : {}),
    ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}),
  });
}
