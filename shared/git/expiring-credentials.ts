import { type GitCredentials, sameAuth } from './credentials';
import type { Clock, GitAuth } from './types';

/** A token and when it stops being accepted (ms since the epoch). */
export type ExpiringToken = { auth: GitAuth; expiresAt: number };

/** How long before its expiry a token is replaced: a call must not start with a token about to lapse. */
const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * Credentials from a provider whose tokens expire, obtained when first needed and kept until
 * `REFRESH_BEFORE_MS` before their expiry (or half their lifetime, for a short-lived one), judged
 * on the injected `clock`. A token the remote refused is dropped at once. Callers asking together
 * share one request to the provider.
 */
export function expiringCredentials({
  obtain,
  clock,
}: {
  obtain: (args: { signal: AbortSignal }) => Promise<ExpiringToken>;
  clock: Pick<Clock, 'now'>;
}): GitCredentials {
  let held: { token: ExpiringToken; renewAt: number } | undefined;
  let pending: Promise<ExpiringToken> | undefined;
  return {
    async current({ signal }) {
      if (held && clock.now() < held.renewAt) return held.token.auth;
      pending ??= (async () => {
        const obtainedAt = clock.now();
        try {
          const token = await obtain({ signal });
          const margin = Math.min(REFRESH_BEFORE_MS, (token.expiresAt - obtainedAt) / 2);
          held = { token, renewAt: token.expiresAt - margin };
          return token;
        } finally {
          pending = undefined;
        }
      })();
      return (await pending).auth;
    },
    refused(auth) {
      if (held && sameAuth(held.token.auth, auth)) held = undefined;
      return true;
    },
  };
}
