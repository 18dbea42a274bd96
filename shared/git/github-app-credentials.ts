import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { z } from 'zod';
import { boundedHttp } from './bounded-http';
import type { GitCredentials } from './credentials';
import { GitHttpRefused } from './errors';
import { expiringCredentials } from './expiring-credentials';
import { classifyHttpStatus, readBody } from './http-status';
import type { Clock } from './types';

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * The app's JSON Web Token (RS256, signed with its private key): issued 60 s in the past against
 * clock drift, valid 9 minutes (GitHub refuses more than 10).
 */
export function githubAppJwt({
  appId,
  privateKey,
  now,
}: {
  appId: string;
  privateKey: KeyObject;
  now: number;
}) {
  const seconds = Math.floor(now / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iat: seconds - 60, exp: seconds + 540, iss: appId }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey);
  return `${header}.${payload}.${base64url(signature)}`;
}

const AccessTokenSchema = z.object({ token: z.string().min(1), expires_at: z.iso.datetime() });

/**
 * A GitHub App's installation tokens as Git credentials (`x-access-token` and the token, as GitHub
 * documents for apps): `POST {apiUrl}/app/installations/{installationId}/access_tokens` with the
 * app's JWT, kept until shortly before the token's `expires_at` (an hour) and replaced when a push
 * or fetch is refused. A refusal by the token endpoint itself is `authFailed` with what it said.
 * @throws Error when `privateKey` is not a PEM private key (the configuration checks it at start).
 */
export function githubAppCredentials({
  appId,
  installationId,
  privateKeyPem,
  apiUrl = 'https://api.github.com',
  clock,
}: {
  appId: string;
  installationId: string;
  privateKeyPem: string;
  apiUrl?: string;
  clock: Pick<Clock, 'now'>;
}): GitCredentials {
  const privateKey = createPrivateKey(privateKeyPem);
  const endpoint = `${apiUrl.replace(/\/+$/, '')}/app/installations/${encodeURIComponent(installationId)}/access_tokens`;
  return expiringCredentials({
    clock,
    async obtain({ signal }) {
      const res = await boundedHttp({ signal }).request({
        url: endpoint,
        method: 'POST',
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${githubAppJwt({ appId, privateKey, now: clock.now() })}`,
          'x-github-api-version': '2022-11-28',
        },
      });
      const body = await readBody(res);
      if (res.statusCode !== 201 && res.statusCode !== 200) {
        const refusal = classifyHttpStatus({
          status: res.statusCode,
          statusMessage: res.statusMessage,
          headers: res.headers ?? {},
          body,
          now: clock.now(),
        });
        throw new GitHttpRefused({ ...refusal, cause: `GitHub App installation token: ${refusal.cause}` });
      }
      let parsed: z.infer<typeof AccessTokenSchema>;
      try {
        parsed = AccessTokenSchema.parse(JSON.parse(body.toString('utf8')));
      } catch {
        throw new GitHttpRefused({
          outcome: 'transient',
          status: res.statusCode,
          cause: 'GitHub App installation token: the answer has no token and expires_at',
        });
      }
      return {
        auth: { username: 'x-access-token', token: parsed.token },
        expiresAt: Date.parse(parsed.expires_at),
      };
    },
  });
}
