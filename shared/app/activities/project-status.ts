import { z } from 'zod';
import type { BranchEffect } from '../../branch';
import { projectSaveStatus } from '../../kube/project-save-status';
import { emit } from '../../telemetry/bus';
import { driverInputSchema } from '../driver/driver-input';
import type { AppRuntime } from '../runtime/app-runtime';

/** The `project-status` activity's input. */
export const projectInputSchema = driverInputSchema.extend({
  effect: z.custom<Extract<BranchEffect, { type: 'project' }>>(
    (value) =>
      typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'project',
    'must be a project effect of the branch',
  ),
});
export type ProjectInput = z.infer<typeof projectInputSchema>;

/** What the `project-status` activity answers: `settled` when the projection needs no retry. */
export interface ProjectionDone {
  saveId: string;
  settled: boolean;
}

/**
 * Whether the source named `cluster` may write the save's target: only then are its cluster's
 * credentials used for the save (a save registered before the saves route checked the name, or
 * with auth disabled, may name any source).
 */
function clusterBound(runtime: AppRuntime, cluster: string, target: string | undefined): boolean {
  const source = runtime.sources.find((candidate) => candidate.name === cluster);
  if (!source || target === undefined || source.access === 'read') return false;
  return source.targets.includes('*') || source.targets.includes(target);
}

/**
 * The `project-status` activity: writes a resolved save's outcome to its CommitRequest in the
 * cluster it came from (the source whose `kubeconfigEnv` names a kubeconfig). A save from a
 * cluster kubescribe cannot reach is served over HTTP only: settled at once. Only a transient
 * failure asks the driver to try the same projection again later.
 */
export async function runProjectStatus(runtime: AppRuntime, rawInput: unknown): Promise<ProjectionDone> {
  const input: ProjectInput = projectInputSchema.parse(rawInput);
  const { effect } = input;
  const { request, status } = effect;
  const kubeconfig =
    request.cluster && clusterBound(runtime, request.cluster, status.target)
      ? runtime.loaded.secrets.sourceKubeconfigs[request.cluster]
      : undefined;
  if (!kubeconfig || !request.uid) return projected(effect.saveId, true);
  const written = await projectSaveStatus({
    kubeconfig: kubeconfig.reveal(),
    request: { namespace: request.namespace, name: request.name, uid: request.uid },
    status: {
      phase: status.phase,
      ...(status.outcome ? { outcome: status.outcome } : {}),
      ...(status.commit ? { commit: status.commit } : {}),
      // a proposing branch's merge commit is on its base; the driver's branch is the proposed one
      branch: status.branch ?? input.branch,
      ...(status.pullRequest ? { pullRequest: { ...status.pullRequest, branch: input.branch } } : {}),
      ...(status.message ? { message: status.message } : {}),
      conditions: status.conditions,
    },
  });
  return projected(effect.saveId, written.result !== 'Transient');
}

function projected(saveId: string, settled: boolean): ProjectionDone {
  emit({ type: 'StatusProjected', settled });
  return { saveId, settled };
}
