import { timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors';

/** A configured source with its token already read from the environment. */
export interface AuthorizedSource {
  name: string;
  token: string;
  /** Target names this source may write (or only read, with `access: 'read'`), or `['*']`. */
  targets: readonly string[];
  /** `read`: the source may read status and lists, never write. */
  access: 'write' | 'read';
}

export type AuthMode = 'required' | 'disabled';

/** The source a request authenticated as (`anonymous` with every target when auth is disabled). */
export type AuthenticatedSource = Pick<AuthorizedSource, 'name' | 'targets' | 'access'>;

const ANONYMOUS: AuthenticatedSource = { name: 'anonymous', targets: ['*'], access: 'write' };

/**
 * Finds the source whose token the request carries (401 when none does). Tokens are compared in
 * constant time, and every source is compared so that the time taken does not tell which
 * source's token was close.
 */
export function authenticateSource(input: {
  authorization: string | null | undefined;
  sources: readonly AuthorizedSource[];
  mode: AuthMode;
}): AuthenticatedSource {
  if (input.mode === 'disabled') return ANONYMOUS;
  const presented = bearerToken(input.authorization);
  if (presented === undefined)
    throw new ApiError('unauthorized', 'Send the source token as "Authorization: Bearer <token>".');
  let match: AuthorizedSource | undefined;
  for (const source of input.sources) {
    if (sameToken(presented, source.token) && match === undefined) match = source;
  }
  if (match === undefined)
    throw new ApiError('unauthorized', 'The bearer token matches no configured source.');
  return match;
}

/** Refuses with 403 a target the authenticated source may not write, and every write of a read-only source. */
export function checkWriteAccess(source: AuthenticatedSource, target: string): void {
  checkReadOnly(source);
  if (!source.targets.includes('*') && !source.targets.includes(target)) {
    throw new ApiError('forbidden', `Source "${source.name}" may not write target "${target}".`);
  }
}

/** Refuses with 403 a target the authenticated source may not read (one it does not list). */
export function checkReadAccess(source: AuthenticatedSource, target: string): void {
  if (!source.targets.includes('*') && !source.targets.includes(target)) {
    throw new ApiError('forbidden', `Source "${source.name}" may not read target "${target}".`);
  }
}

/** Refuses with 403 any write by a source configured `access: read`. */
export function checkReadOnly(source: AuthenticatedSource): void {
  if (source.access === 'read') {
    throw new ApiError(
      'forbidden',
      `Source "${source.name}" is read-only (access: read): it may read status and lists, not write.`,
    );
  }
}

/**
 * Authenticates the request's source (401) and, given a target, checks the source may write it
 * (403). Returns the source's name (`anonymous` when auth is disabled on a loopback-only server).
 */
export function authorizeSource(input: {
  authorization: string | null | undefined;
  sources: readonly AuthorizedSource[];
  mode: AuthMode;
  target?: string;
}): string {
  const source = authenticateSource(input);
  if (input.target !== undefined) checkWriteAccess(source, input.target);
  return source.name;
}

function bearerToken(header: string | null | undefined): string | undefined {
  const found = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return found?.[1];
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  // timingSafeEqual needs equal lengths; comparing b with itself keeps the time independent of a's length.
  return a.length === b.length ? timingSafeEqual(a, b) : !timingSafeEqual(b, b);
}
