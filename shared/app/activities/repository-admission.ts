import { normalizeRepositoryUrl } from '../runtime/branch-key';

/**
 * What a Git activity answers instead of running when its repository already has
 * `limits.repositoryConcurrency` Git activities in flight in this worker process: no Git call was
 * made and nothing is recorded; the driver asks again after a short wait. A repository whose calls
 * hang therefore holds at most that many of the host's activity slots (host.json
 * `maxConcurrentActivityFunctions`), and every other repository keeps the rest.
 */
export interface RepositoryBusy {
  repositoryBusy: {
    /** The repository (normalized URL, no credentials) and how many of its activities were in flight. */
    repository: string;
    inFlight: number;
  };
}

/** Whether an activity's answer is a `RepositoryBusy` (the driver then waits instead of recording it). */
export function isRepositoryBusy(answer: unknown): answer is RepositoryBusy {
  return typeof answer === 'object' && answer !== null && 'repositoryBusy' in answer;
}

/** Counts, per repository, the Git activities running in this process and admits up to a limit. */
export interface RepositoryAdmission {
  /** Runs `work` when `repositoryUrl` has fewer than `limit` activities in flight here; else answers busy at once. */
  run<T>(repositoryUrl: string, limit: number, work: () => Promise<T>): Promise<T | RepositoryBusy>;
  /** Activities in flight per repository (normalized URL), for status and tests. */
  inFlight(): ReadonlyMap<string, number>;
}

export function createRepositoryAdmission(): RepositoryAdmission {
  const running = new Map<string, number>();
  return {
    async run(repositoryUrl, limit, work) {
      // two spellings of one repository share its limit, as they share its branch keys
      const repository = normalizeRepositoryUrl(repositoryUrl);
      const inFlight = running.get(repository) ?? 0;
      if (inFlight >= limit) return { repositoryBusy: { repository, inFlight } };
      running.set(repository, inFlight + 1);
      try {
        return await work();
      } finally {
        const left = (running.get(repository) ?? 1) - 1;
        if (left === 0) running.delete(repository);
        else running.set(repository, left);
      }
    },
    inFlight: () => running,
  };
}
