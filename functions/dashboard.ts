/** `GET /api/dashboard`: the read-only dashboard (page, style, script), no authentication. */
import { app, type HttpRequest, type HttpResponseInit } from '@azure/functions';
import { DASHBOARD_CSS, dashboardHtml } from '../shared/app/dashboard/dashboard-page';
import { DASHBOARD_SCRIPT } from '../shared/app/dashboard/dashboard-script';
import { appRuntime } from './runtime';

const ASSETS: Record<string, { type: string; body: () => Promise<string> }> = {
  '': {
    type: 'text/html; charset=utf-8',
    // Whether to ask for a token first; a configuration that cannot load yet is taken to need one.
    body: async () =>
      dashboardHtml(
        await appRuntime().then(
          (runtime) => runtime.authMode,
          () => 'required' as const,
        ),
      ),
  },
  'app.css': { type: 'text/css; charset=utf-8', body: async () => DASHBOARD_CSS },
  'app.js': { type: 'text/javascript; charset=utf-8', body: async () => DASHBOARD_SCRIPT },
};

// The page runs only its own script and talks only to its own origin; it never embeds elsewhere.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** Answers the page or one of its two files; anything else under it is 404. */
export async function dashboard(request: HttpRequest): Promise<HttpResponseInit> {
  const asset = ASSETS[request.params.asset ?? ''];
  if (!asset) {
    return {
      status: 404,
      jsonBody: { error: 'not-found', message: 'The dashboard has no such file.' },
    };
  }
  return {
    status: 200,
    headers: { 'content-type': asset.type, ...SECURITY_HEADERS },
    body: await asset.body(),
  };
}

app.http('dashboard', {
  route: 'dashboard/{asset?}',
  methods: ['GET'],
  authLevel: 'anonymous',
  handler: dashboard,
});
