import { type KeyObject, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call to the installation token endpoint, as the fake API judged it. */
export type TokenRequest = { path: string; status: number; claims?: Record<string, unknown> };

export type GitHubAppApi = {
  /** The API base URL (what `apiUrl` names; https://api.github.com on github.com). */
  url: string;
  readonly requests: readonly TokenRequest[];
  /** Whether `token` is an installation token this API issued, not revoked and not expired at `now()`. */
  accepts(token: string): boolean;
  /** Every token issued so far stops being accepted (a token revoked, or expired early). */
  revokeAll(): void;
  stop(): Promise<void>;
};

/**
 * GitHub's installation token endpoint, as documented: `POST /app/installations/{id}/access_tokens`
 * with `Authorization: Bearer <JWT>`, the JWT signed RS256 by the app's private key (verified here
 * with its public key), issued by `appId`, at most 10 minutes long and valid at `now()`. Answers
 * 201 `{token, expires_at}` (an hour from `now()`), or 401 as GitHub does for a JWT it cannot verify.
 */
export async function startGitHubAppApi({
  appId,
  installationId,
  publicKey,
  now,
  lifetimeMs = 3_600_000,
}: {
  appId: string;
  installationId: string;
  publicKey: KeyObject;
  now: () => number;
  lifetimeMs?: number;
}): Promise<GitHubAppApi> {
  const requests: TokenRequest[] = [];
  const issued = new Map<string, number>();
  const judge = (authorization: string | undefined): Record<string, unknown> | string => {
    const jwt = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const [header, payload, signature] = jwt?.split('.') ?? [];
    if (!header || !payload || !signature) return 'A JSON web token could not be decoded';
    const alg = JSON.parse(Buffer.from(header, 'base64url').toString()).alg;
    const signed = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, 'base64url'),
    );
    if (alg !== 'RS256' || !signed) return 'A JSON web token could not be decoded';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      number | string
    >;
    const seconds = now() / 1000;
    if (String(claims.iss) !== appId) return "'Issuer' claim ('iss') must be the app's id";
    if (Number(claims.exp) - Number(claims.iat) > 600)
      return "'Expiration time' claim ('exp') is too far in the future";
    if (!(Number(claims.iat) <= seconds && seconds < Number(claims.exp)))
      return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
    return claims;
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      if (req.method !== 'POST' || path !== `/app/installations/${installationId}/access_tokens`) {
        requests.push({ path, status: 404 });
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end('{"message":"Not Found"}');
      }
      const judged = judge(req.headers.authorization);
      if (typeof judged === 'string') {
        requests.push({ path, status: 401 });
        res.writeHead(401, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ message: judged }));
      }
      const token = `ghs_${randomBytes(12).toString('hex')}`;
      const expiresAt = now() + lifetimeMs;
      issued.set(token, expiresAt);
      requests.push({ path, status: 201, claims: judged });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          token,
          expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          permissions: { contents: 'write' },
          repository_selection: 'selected',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    accepts: (token) => (issued.get(token) ?? 0) > now(),
    revokeAll: () => issued.clear(),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
