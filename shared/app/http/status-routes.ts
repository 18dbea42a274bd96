import type { ApiResponse } from '../../api/errors';
import { type PublicationStatus, publicationStatus, refusedWrites } from '../../branch';
import type { AppRuntime } from '../runtime/app-runtime';
import { repositoryForDisplay } from '../runtime/branch-key';
import type { BranchGateway } from './branch-gateway';
import { branchHandle } from './branch-handle';
import type { RouteRequest } from './route-request';
import { accessTarget } from './target-access';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

/** `GET /api/v1/targets/{target}`: the target, its branch's publication status and open window. */
export async function getTarget({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const state = await branchHandle(runtime, gateway, target).read();
  const status = state ? publicationStatus(state.branch, request.at) : undefined;
  const refused = state ? refusedWrites(state.branch, target.config.name) : { count: 0, recent: [] };
  const problem = target.encryptionProblem;
  return {
    status: 200,
    body: {
      target: target.config.name,
      repository: repositoryForDisplay(target.repository.url),
      branch: target.config.branch,
      path: target.config.path,
      conditions: [
        ...(status?.conditions ?? []),
        ...(refused.condition ? [refused.condition] : []),
        ...(problem
          ? [
              {
                type: 'EncryptionReady',
                status: 'False',
                reason: 'EncryptionMisconfigured',
                message: `Secrets are refused: ${problem.message}`,
                lastTransitionTime: problem.since,
              },
            ]
          : []),
      ],
      publication: publicationView(status),
      window: status?.window ?? { open: false, changes: 0 },
      refusedWrites: { count: refused.count, recent: refused.recent },
      ...(target.config.encryption
        ? {
            encryption: {
              recipients: target.config.encryption.age.recipients.length,
              ready: problem === undefined,
              counts: runtime.encryptionCounters.of(target.config.name),
            },
          }
        : {}),
    },
  };
}

/** `POST /api/v1/targets/{target}/refresh`: the remote changed; the branch observes it through its driver. */
export async function postRefresh({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const branch = branchHandle(runtime, gateway, target);
  await branch.apply(request.at, [{ type: 'RefreshRemote', at: request.at }]);
  await branch.wake();
  return { status: 202, body: { branch: target.branch.key } };
}

/** A branch's publication as the status routes show it: every field present, null when unknown. */
export function publicationView(status: PublicationStatus | undefined) {
  return {
    pendingWrites: status?.pendingWrites ?? 0,
    pendingBytes: status?.pendingBytes ?? 0,
    oldestPendingSince: status?.oldestPendingSince ?? null,
    retryAt: status?.retryAt ?? null,
    lastError: status?.lastError ?? null,
    parentMissing: status?.parentMissing ?? false,
    intakePaused: status?.intakePaused ?? false,
    lastPush: status?.lastPush ?? null,
  };
}
