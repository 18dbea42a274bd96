/**
 * What the app server lets clients hold: requests in flight in all, requests in flight per source,
 * and a separate allowance for probes (liveness and metrics), so that slow or many requests of
 * clients never make the probes fail and get a healthy pod restarted.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The paths answered outside the request limit (GET only): the liveness probe and the Prometheus scrape. */
const PROBE_PATHS = new Set(['/api/healthz', '/metrics', '/api/metrics']);

/** Probes served at once: a scrape and a probe or two are normal; more is no probe. */
export const PROBES_IN_FLIGHT = 8;

/** Why a request is not taken now. */
export type LimitRefusal =
  | { status: 503; error: 'not-ready'; message: string }
  | { status: 429; error: 'too-many-requests'; message: string };

/** A slot taken by an admitted request: give it back when its response closes. */
export type Release = () => void;

/**
 * The source a request counts against: its bearer token (hashed: the limit keeps no secret), else
 * its peer address. Each configured source has its own token, so one source cannot take the slots
 * of the others; clients without a token share their address's.
 */
export function requestSource(req: IncomingMessage): string {
  const authorization = req.headers.authorization;
  if (authorization) return `token:${createHash('sha256').update(authorization).digest('base64url')}`;
  return `address:${req.socket.remoteAddress ?? 'unknown'}`;
}

/** Whether a request is a probe: a GET of the liveness or metrics path. */
export function isProbe(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?')[0]!.toLowerCase();
  return PROBE_PATHS.has(path);
}

/** Counts requests in flight and admits or refuses each new one. */
export function requestLimits({
  maxConcurrentRequests,
  maxRequestsPerSource,
}: {
  maxConcurrentRequests: number;
  maxRequestsPerSource: number;
}): { admit(req: IncomingMessage): Release | LimitRefusal } {
  let inFlight = 0;
  let probes = 0;
  const perSource = new Map<string, number>();
  return {
    admit(req) {
      if (isProbe(req)) {
        if (probes >= PROBES_IN_FLIGHT) {
          return {
            status: 503,
            error: 'not-ready',
            message: `The host serves ${PROBES_IN_FLIGHT} probes at once; retry.`,
          };
        }
        probes++;
        return once(() => probes--);
      }
      const source = requestSource(req);
      const held = perSource.get(source) ?? 0;
      if (held >= maxRequestsPerSource) {
        return {
          status: 429,
          error: 'too-many-requests',
          message: `One client (a token, or an address without one) may have ${maxRequestsPerSource} requests in flight; retry when one has been answered.`,
        };
      }
      if (inFlight >= maxConcurrentRequests) {
        return {
          status: 503,
          error: 'not-ready',
          message: `The host serves ${maxConcurrentRequests} requests at once; retry.`,
        };
      }
      inFlight++;
      perSource.set(source, held + 1);
      return once(() => {
        inFlight--;
        const left = (perSource.get(source) ?? 1) - 1;
        if (left > 0) perSource.set(source, left);
        else perSource.delete(source);
      });
    },
  };
}

function once(release: () => void): Release {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
