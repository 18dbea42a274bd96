import type { GitAuth } from './types';

/**
 * Where an http remote's credentials come from: fixed (a token from the environment), or a provider
 * whose tokens expire (an Entra ID token, a GitHub App installation token). The session asks for them
 * before each call and tells the provider when the remote refused them, so an expired token is
 * replaced and the call sent once more.
 */
export type GitCredentials = {
  /** The credentials to send now. */
  current(args: { signal: AbortSignal }): Promise<GitAuth>;
  /**
   * The remote refused `auth` (HTTP 401/403, or Azure DevOps' 203): forgets it. True when the next
   * `current()` may give other credentials (worth one more try), false for a fixed token.
   */
  refused(auth: GitAuth): boolean;
};

/** Credentials that never change: the token configured by environment variable. */
export function fixedCredentials(auth: GitAuth): GitCredentials {
  return { current: async () => auth, refused: () => false };
}

/** The Authorization header for `auth`: Basic (user name and token) or Bearer. */
export function authorizationHeader(auth: GitAuth): Record<string, string> {
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.token}`).toString('base64')}` };
}

/** Whether two credentials are the same (a provider answering a refused token again). */
export function sameAuth(a: GitAuth, b: GitAuth): boolean {
  return 'bearer' in a
    ? 'bearer' in b && a.bearer === b.bearer
    : 'token' in b && a.username === b.username && a.token === b.token;
}
