import {
  type AuthorizedSource,
  authenticateSource,
  authorizeSource,
  checkReadAccess,
} from '../../../shared/api/auth';
import { ApiError } from '../../../shared/api/errors';

const sources: AuthorizedSource[] = [
  { name: 'cluster-a', token: 'token-a-0123456789', targets: ['prod'], access: 'write' },
  { name: 'ci', token: 'token-ci-987', targets: ['*'], access: 'write' },
  { name: 'dashboard', token: 'token-read-4567', targets: ['prod'], access: 'read' },
];

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('authorizing a source', () => {
  it('names the source whose token the request carries', () => {
    expect(
      authorizeSource({
        authorization: 'Bearer token-a-0123456789',
        sources,
        mode: 'required',
        target: 'prod',
      }),
    ).toBe('cluster-a');
  });

  it('lets a wildcard source write any target', () => {
    expect(
      authorizeSource({ authorization: 'Bearer token-ci-987', sources, mode: 'required', target: 'staging' }),
    ).toBe('ci');
  });

  it('refuses a missing token with 401', () => {
    const error = refusal(() => authorizeSource({ authorization: undefined, sources, mode: 'required' }));
    expect(error.code).toBe('unauthorized');
    expect(error.toResponse().status).toBe(401);
  });

  it.each(['Bearer wrong', 'Bearer token-a-012345678', 'Basic token-a-0123456789', 'token-a-0123456789'])(
    'refuses %s with 401',
    (authorization) => {
      expect(refusal(() => authorizeSource({ authorization, sources, mode: 'required' })).code).toBe(
        'unauthorized',
      );
    },
  );

  it('refuses a target the source may not write with 403', () => {
    const error = refusal(() =>
      authorizeSource({
        authorization: 'Bearer token-a-0123456789',
        sources,
        mode: 'required',
        target: 'staging',
      }),
    );
    expect(error.code).toBe('forbidden');
    expect(error.toResponse().status).toBe(403);
    expect(error.message).not.toContain('token-a');
  });

  it('lets every request through when auth is disabled', () => {
    expect(
      authorizeSource({ authorization: undefined, sources: [], mode: 'disabled', target: 'local' }),
    ).toBe('anonymous');
  });

  it('refuses every write of a read-only source with 403 naming why, and lets it read its targets', () => {
    const error = refusal(() =>
      authorizeSource({ authorization: 'Bearer token-read-4567', sources, mode: 'required', target: 'prod' }),
    );
    expect(error.toResponse().status).toBe(403);
    expect(error.message).toContain('read-only (access: read)');
    const reader = authenticateSource({ authorization: 'Bearer token-read-4567', sources, mode: 'required' });
    expect(() => checkReadAccess(reader, 'prod')).not.toThrow();
    expect(refusal(() => checkReadAccess(reader, 'staging')).message).toContain(
      'may not read target "staging"',
    );
  });
});
