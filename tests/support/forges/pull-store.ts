import { randomBytes } from 'node:crypto';

/** A pull request as an emulator holds it, whatever its host calls the fields. */
export type EmulatedPull = {
  /** The repository it belongs to, as the host's API path names it (`owner/repo`, a project path...). */
  repository: string;
  number: number;
  title: string;
  description: string;
  head: string;
  base: string;
  state: 'open' | 'merged' | 'closed';
  /** The merge commit once merged; before, a host may show a test merge's (GitHub does). */
  mergeCommit?: string;
  /** What the host shows as the merge commit while the pull request is open or closed. */
  testMergeCommit: string;
};

/** The helpers a test calls to act as the person on the other side of the pull request. */
export type PullControls = {
  /** A person merged pull request `number`; `sha` is the commit the merge made on the base. */
  merge(number: number, sha: string): void;
  /** A person closed pull request `number` without merging. */
  close(number: number): void;
  /** Every pull request, in the order they were opened. */
  pulls(): EmulatedPull[];
};

/**
 * The pull requests of one emulator. Numbers run across the emulator's repositories (GitHub's and
 * Gitea's are per repository, but a test uses one repository per emulator, and one sequence keeps
 * `merge(number)` unambiguous).
 */
export function pullStore() {
  const all: EmulatedPull[] = [];
  const find = (number: number) => all.find((pull) => pull.number === number);
  const controls: PullControls = {
    merge(number, sha) {
      const pull = find(number);
      if (pull?.state !== 'open') throw new Error(`no open pull request #${number} to merge`);
      Object.assign(pull, { state: 'merged', mergeCommit: sha });
    },
    close(number) {
      const pull = find(number);
      if (pull?.state !== 'open') throw new Error(`no open pull request #${number} to close`);
      pull.state = 'closed';
    },
    pulls: () => all.map((pull) => ({ ...pull })),
  };
  return {
    controls,
    find,
    inRepository: (repository: string) => all.filter((pull) => pull.repository === repository),
    openFor: (repository: string, head: string, base: string) =>
      all.find(
        (p) => p.repository === repository && p.head === head && p.base === base && p.state === 'open',
      ),
    add(pull: Omit<EmulatedPull, 'number' | 'state' | 'testMergeCommit'>): EmulatedPull {
      const added: EmulatedPull = {
        ...pull,
        number: all.length + 1,
        state: 'open',
        testMergeCommit: randomBytes(20).toString('hex'),
      };
      all.push(added);
      return added;
    },
  };
}

/** Characters as a person counts them (code points), as hosts count their limits. */
export const characters = (text: string) => [...text].length;
