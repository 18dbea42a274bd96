import { ApiError } from './errors';

/**
 * Without auth (`server.auth: disabled`, loopback only) any page a browser on the machine opens
 * could send it requests: a form posted across origins needs no CORS preflight and would suspend a
 * target. Browsers name where a request comes from (`Origin` on every cross-origin request and on
 * every POST, and `Sec-Fetch-Site`: Fetch Metadata, https://www.w3.org/TR/fetch-metadata/), so a
 * request they mark as coming from another origin is refused; the dashboard (same origin) and
 * clients that are not browsers (curl, the forwarder, the apiserver) send neither or a matching one,
 * and the body-less POSTs keep working for them.
 */
export function checkSameOrigin(header: (name: string) => string | null | undefined): void {
  const site = header('sec-fetch-site');
  const origin = header('origin');
  const host = header('host');
  const crossSite = site === 'cross-site' || site === 'same-site';
  const otherOrigin = origin != null && origin !== '' && !sameHost(origin, host);
  if (crossSite || otherOrigin) {
    throw new ApiError(
      'forbidden',
      'A browser request from another origin is refused: with server.auth disabled, only pages this server serves (the dashboard) may call it.',
    );
  }
}

function sameHost(origin: string, host: string | null | undefined): boolean {
  if (origin === 'null' || !host || !URL.canParse(origin)) return false;
  return new URL(origin).host === host.toLowerCase();
}
