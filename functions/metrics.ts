import { app, type HttpRequest } from '@azure/functions';
import { ApiError } from '../shared/api/errors';
import { metricsRefusal } from '../shared/app/http/metrics-access';
import { ensureError } from '../shared/errors';
import { appRuntime } from './runtime';
import { telemetry } from './telemetry';

/**
 * `GET /api/metrics` (and `/metrics` on the embedded host): the Prometheus exposition, behind a
 * source's token with `server.metricsAuth: token`. On the Functions host metrics go to Application
 * Insights instead, and this answers 404.
 */
app.http('metrics', {
  route: 'metrics',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: async (request: HttpRequest) => {
    const scrape = telemetry?.scrape;
    if (!scrape) {
      return {
        status: 404,
        jsonBody: {
          error: 'not-found',
          message: 'No Prometheus metrics here: on the Functions host they go to Application Insights.',
        },
      };
    }
    let refusal: ReturnType<typeof metricsRefusal>;
    try {
      refusal = metricsRefusal(await appRuntime(), request.headers.get('authorization'));
    } catch (error) {
      refusal = new ApiError(
        'not-ready',
        `kubescribe cannot start: ${ensureError(error).message}`,
      ).toResponse();
    }
    if (refusal) return { status: refusal.status, headers: refusal.headers, jsonBody: refusal.body };
    const { contentType, text } = await scrape();
    return { status: 200, headers: { 'content-type': contentType }, body: text };
  },
});
