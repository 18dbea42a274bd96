import { app } from '@azure/functions';
import { telemetry } from './telemetry';

/**
 * `GET /api/metrics` (and `/metrics` on the embedded host): the Prometheus exposition. On the
 * Functions host metrics go to Application Insights instead, and this answers 404.
 */
app.http('metrics', {
  route: 'metrics',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: async () => {
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
    const { contentType, text } = await scrape();
    return { status: 200, headers: { 'content-type': contentType }, body: text };
  },
});
