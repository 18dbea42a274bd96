import type { TokenCredential } from '@azure/identity';
import type { GitCredentials } from './credentials';
import { GitHttpRefused } from './errors';
import { expiringCredentials } from './expiring-credentials';
import type { Clock } from './types';

/** Azure DevOps' resource (application) id: an Entra ID token for it opens Azure Repos. */
export const AZURE_DEVOPS_SCOPE = '499b84ac-1321-427f-aa17-267ca6975798/.default';

/**
 * Entra ID tokens for Azure DevOps as Git credentials, sent as `Authorization: Bearer` (the form
 * Azure DevOps documents for service principals and managed identities). `credential` is a managed
 * identity, a workload identity, or any `@azure/identity` credential; its tokens last about an hour
 * and are replaced shortly before they expire and when Azure Repos refuses one (a 203 or 401).
 * A credential that cannot give a token is `authFailed`, saying why.
 */
export function azureDevOpsCredentials({
  credential,
  clock,
}: {
  credential: TokenCredential;
  clock: Pick<Clock, 'now'>;
}): GitCredentials {
  return expiringCredentials({
    clock,
    async obtain({ signal }) {
      let token: Awaited<ReturnType<TokenCredential['getToken']>>;
      try {
        token = await credential.getToken(AZURE_DEVOPS_SCOPE, { abortSignal: signal });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const said = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new GitHttpRefused({
          outcome: 'authFailed',
          status: 0,
          cause: `Entra ID token for Azure DevOps: ${said}`,
        });
      }
      if (!token) {
        throw new GitHttpRefused({
          outcome: 'authFailed',
          status: 0,
          cause: 'Entra ID token for Azure DevOps: none was issued',
        });
      }
      return { auth: { bearer: token.token }, expiresAt: token.expiresOnTimestamp };
    },
  });
}
