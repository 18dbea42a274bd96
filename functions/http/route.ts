import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import { ApiError, type ApiResponse } from '../../shared/api/errors';
import type { BranchGateway } from '../../shared/app/http/branch-gateway';
import { reportRefusal } from '../../shared/app/http/refused-writes';
import type { RouteRequest } from '../../shared/app/http/route-request';
import type { AppRuntime } from '../../shared/app/runtime/app-runtime';
import { ensureError, KubescribeError } from '../../shared/errors';
import { durableBranchGateway } from '../branch-gateway';
import { durableClient, durableClientInput } from '../durable-client';
import { appRuntime } from '../runtime';

type Handler = (
  deps: { runtime: AppRuntime; gateway: BranchGateway },
  request: RouteRequest,
) => Promise<ApiResponse>;

/**
 * Registers one route of the contract (docs/api.md) under `/api/<route>`: every method reaches
 * it, so an unsupported one gets the contract's 405, and every failure its error body.
 */
export function route(
  name: string,
  path: string,
  handlers: Partial<Record<'GET' | 'POST' | 'DELETE', Handler>>,
): void {
  app.http(name, {
    route: path,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // kubescribe checks each source's bearer token itself; the Functions key would be a second secret to hand out.
    authLevel: 'anonymous',
    extraInputs: [durableClientInput],
    handler: async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
      const at = new Date().toISOString();
      const handle = handlers[request.method as keyof typeof handlers];
      let runtime: AppRuntime | undefined;
      try {
        if (!handle) {
          throw new ApiError(
            'method-not-allowed',
            `${request.method} is not allowed here; use ${Object.keys(handlers).join(' or ')}.`,
          );
        }
        runtime = await appRuntime().catch((error: unknown) => {
          const reason = `kubescribe cannot start: ${ensureError(error).message}`;
          context.error(reason);
          throw new ApiError('not-ready', reason);
        });
        const response = await handle(
          { runtime, gateway: durableBranchGateway(durableClient(context)) },
          routeRequest(request, at),
        );
        return toHttp(response);
      } catch (error) {
        if (error instanceof ApiError) {
          reportRefusal({
            route: name,
            method: request.method,
            target: request.params.target,
            knownTarget: (target) => runtime?.targets.has(target) ?? false,
            error,
          });
          return toHttp(error.toResponse());
        }
        const failure = ensureError(error);
        context.error(`${name}: ${failure.name}: ${failure.message}`);
        // Not the client's fault and nothing was acknowledged: retrying later is safe.
        return toHttp(
          new ApiError(
            'not-ready',
            `kubescribe could not take the request now (${error instanceof KubescribeError ? error.code : 'internal'}); retry.`,
            {
              retryAfterSeconds: 5,
            },
          ).toResponse(),
        );
      }
    },
  });
}

function routeRequest(request: HttpRequest, at: string): RouteRequest {
  return {
    params: request.params,
    query: (name) => request.query.get(name),
    header: (name) => request.headers.get(name),
    body: {
      contentType: request.headers.get('content-type'),
      contentLength: request.headers.get('content-length'),
      read: () => request.arrayBuffer(),
    },
    at,
  };
}

function toHttp(response: ApiResponse): HttpResponseInit {
  return {
    status: response.status,
    headers: { 'content-type': 'application/json', ...response.headers },
    jsonBody: response.body,
  };
}
