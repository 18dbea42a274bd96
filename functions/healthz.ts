/** `GET /api/healthz`: liveness, no authentication. */
import { app, type HttpResponseInit } from '@azure/functions';

/** Answers 200 `{"status":"ok"}` while the app is up. */
export async function healthz(): Promise<HttpResponseInit> {
  return { status: 200, jsonBody: { status: 'ok' } };
}

app.http('healthz', { route: 'healthz', methods: ['GET'], authLevel: 'anonymous', handler: healthz });
