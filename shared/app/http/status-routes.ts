import type { ApiResponse } from '../../api/errors';
import { ApiError } from '../../api/errors';
import {
  heldChangesView,
  notRecordedView,
  type PendingPathView,
  type PendingRunsView,
  type PublicationStatus,
  pendingPaths,
  publicationStatus,
  pullRequestView,
  refusedWrites,
  suspensionOf,
  targetSaves,
} from '../../branch';
import { changeBatchReader } from '../../payloads/change-batches';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import { repositoryForDisplay } from '../runtime/branch-key';
import type { BranchGateway } from './branch-gateway';
import { branchHandle } from './branch-handle';
import { commitWebUrl } from './commit-link';
import { page, type RouteRequest } from './route-request';
import { accessTarget, authenticate, readTarget } from './target-access';
import { whatChanged } from './what-changed';

interface Deps {
  runtime: AppRuntime;
  gateway: BranchGateway;
}

/** `GET /api/v1/targets`: every target the source may read, with a summary of its branch's status. */
export async function listTargets({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const source = authenticate(runtime, request);
  const readable = [...runtime.targets.values()].filter(
    (target) => source.targets.includes('*') || source.targets.includes(target.config.name),
  );
  // One read per branch, through the admission cache: the list stays cheap however often it is polled.
  const states = new Map(
    await Promise.all(
      [...new Set(readable.map((target) => target.branch.key))].map(
        async (key) => [key, await gateway.read(key)] as const,
      ),
    ),
  );
  const atMs = Date.parse(request.at);
  const targets = readable.map((target) => {
    const state = states.get(target.branch.key);
    const status = state ? publicationStatus(state.branch, request.at) : undefined;
    const ready = status?.conditions.find((condition) => condition.type === 'Ready');
    return {
      name: target.config.name,
      repository: target.repository.name,
      branch: target.config.branch,
      path: target.config.path,
      ready: ready?.status ?? 'Unknown',
      reason: ready?.reason ?? 'NoStateYet',
      suspended: state ? suspensionOf(state.branch, target.config.name).suspended : target.config.suspend,
      sourceQuiet: runtime.activity.quiet(target.config.name, atMs).length > 0,
      pendingWrites: status?.pendingWrites ?? 0,
      notRecorded: notRecordedView(state?.branch.notRecorded?.[target.config.name]).count,
      retryAt: status?.retryAt ?? null,
      intakePaused: status?.intakePaused ?? false,
      lastPush: lastPushView(target, status),
      ...(target.config.publish === 'propose'
        ? { pullRequest: (state ? pullRequestView(state.branch)?.open : undefined) ?? null }
        : {}),
      status: `/api/v1/targets/${target.config.name}`,
    };
  });
  return { status: 200, body: { targets } };
}

/** `GET /api/v1/targets/{target}`: the target, its branch's publication status and open window. */
export async function getTarget({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = readTarget(runtime, request);
  const state = await branchHandle(runtime, gateway, target).read();
  const status = state ? publicationStatus(state.branch, request.at) : undefined;
  const refused = state ? refusedWrites(state.branch, target.config.name) : { count: 0, recent: [] };
  const notRecorded = notRecordedView(state?.branch.notRecorded?.[target.config.name]);
  const problem = target.encryptionProblem;
  const suspension = state ? suspensionOf(state.branch, target.config.name) : undefined;
  const atMs = Date.parse(request.at);
  const quiet = runtime.activity.condition(target.config.name, atMs);
  return {
    status: 200,
    body: {
      target: target.config.name,
      repository: repositoryForDisplay(target.repository.url),
      branch: target.config.branch,
      ...(target.config.publish === 'propose'
        ? {
            proposeBranch: target.branch.branch,
            pullRequest: (state ? pullRequestView(state.branch) : undefined) ?? {
              open: null,
              ended: null,
              unproposed: false,
              lastError: null,
            },
          }
        : {}),
      path: target.config.path,
      conditions: [
        ...(status?.conditions ?? []),
        ...(refused.condition ? [refused.condition] : []),
        ...(notRecorded.condition ? [notRecorded.condition] : []),
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
        ...(suspension?.condition ? [suspension.condition] : []),
        ...(quiet ? [quiet] : []),
      ],
      ...(target.config.encryption
        ? {
            encryption: {
              recipients: target.config.encryption.age.recipients.length,
              ready: problem === undefined,
              counts: runtime.encryptionCounters.of(target.config.name),
            },
          }
        : {}),
      publication: { ...publicationView(status), lastPush: lastPushView(target, status) },
      window: status?.window ?? { open: false, changes: 0 },
      heldForAttribution: heldChangesView(state?.branch, target.config.name),
      refusedWrites: { count: refused.count, recent: refused.recent },
      notRecorded: { count: notRecorded.count, byReason: notRecorded.byReason, recent: notRecorded.recent },
      ...whatChanged(
        { name: target.config.name, repositoryUrl: target.repository.url },
        state?.branch,
        request.at,
      ),
      suspension: {
        suspended: suspension?.suspended ?? false,
        by: suspension?.by ?? [],
        since: suspension?.since ?? null,
        publicationHeldBy: suspension?.publicationHeldBy ?? null,
      },
      quietSources: runtime.activity.quiet(target.config.name, atMs),
    },
  };
}

/**
 * `GET /api/v1/targets/{target}/pending`: the target's unpublished paths, a page at a time. Read
 * past the admission cache, like a save's status: a client lists what it just sent.
 */
export async function listPending({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = readTarget(runtime, request);
  const state = await gateway.readNow(target.branch.key);
  const paths = state ? await listedPaths(runtime, pendingPaths(state.branch, target.config.name)) : [];
  return { status: 200, body: { target: target.config.name, ...page(request, paths) } };
}

/**
 * The pending paths with the changes of runs read from their batches: per write (or the open
 * window), each path once, the newest change at its first place, as the write will publish it.
 */
async function listedPaths(
  runtime: AppRuntime,
  entries: readonly (PendingPathView | PendingRunsView)[],
): Promise<PendingPathView[]> {
  const batches = changeBatchReader(runtime.payloads);
  const paths: PendingPathView[] = [];
  for (const entry of entries) {
    if (!('runs' in entry)) {
      paths.push(entry);
      continue;
    }
    const byPath = new Map<string, PendingPathView>();
    for (const run of entry.runs) {
      const since = entry.writeId === null ? new Date(run.atMs).toISOString() : entry.since;
      for (const change of (await batches.changesOf(run.ref)).slice(run.first, run.first + run.n)) {
        const first = byPath.get(change.path);
        byPath.set(change.path, {
          path: change.path,
          operation: change.operation,
          writeId: entry.writeId,
          since: first?.since ?? since,
        });
      }
    }
    paths.push(...byPath.values());
  }
  return paths;
}

/** `GET /api/v1/targets/{target}/saves`: the target's held saves, then its recent resolved ones, a page at a time. */
export async function listSaves({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = readTarget(runtime, request);
  const state = await gateway.readNow(target.branch.key);
  const saves = state ? targetSaves(state.branch, target.config.name) : [];
  return { status: 200, body: { target: target.config.name, ...page(request, saves) } };
}

/** `POST /api/v1/targets/{target}/refresh`: the remote changed; the branch observes it through its driver. */
export async function postRefresh({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const branch = branchHandle(runtime, gateway, target);
  await branch.apply(request.at, [{ type: 'RefreshRemote', at: request.at }]);
  await branch.wake();
  return { status: 202, body: { branch: target.branch.key } };
}

/**
 * `POST /api/v1/targets/{target}/suspend`: keep the target's accepted changes and publish none of
 * them until it resumes. Idempotent.
 */
export async function postSuspend({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  const branch = branchHandle(runtime, gateway, target);
  await branch.apply(request.at, [{ type: 'SuspendTarget', at: request.at, target: target.config.name }]);
  return { status: 202, body: { target: target.config.name, suspended: true, status: statusPath(target) } };
}

/**
 * `POST /api/v1/targets/{target}/resume`: lifts the operator's suspension and publishes what was
 * kept. A target its configuration suspends (`suspend: true`) stays suspended: 409 says so.
 */
export async function postResume({ runtime, gateway }: Deps, request: RouteRequest): Promise<ApiResponse> {
  const target = accessTarget(runtime, request);
  if (target.config.suspend) {
    throw new ApiError(
      'suspended-by-configuration',
      `Target "${target.config.name}" is suspended by its configuration (suspend: true); remove that to resume it.`,
    );
  }
  const branch = branchHandle(runtime, gateway, target);
  await branch.apply(request.at, [{ type: 'ResumeTarget', at: request.at, target: target.config.name }]);
  await branch.wake();
  return { status: 202, body: { target: target.config.name, suspended: false, status: statusPath(target) } };
}

function statusPath(target: ResolvedTarget): string {
  return `/api/v1/targets/${target.config.name}`;
}

function lastPushView(target: ResolvedTarget, status: PublicationStatus | undefined) {
  const push = status?.lastPush;
  return push ? { ...push, url: commitWebUrl(target.repository.url, push.commit) } : null;
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
