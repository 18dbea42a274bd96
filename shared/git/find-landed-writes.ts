import { type CommitSummary, readCommitSummary } from './commit-summaries';

/**
 * Walks the first-parent history from `head` (at most `depth` commits, stopping at the shallow
 * boundary) and returns which of `writeIds` already have a commit there, by the
 * `Kubescribe-Write:` trailer in the final trailer block of a commit kubescribe made (its committer
 * is `committer`): a trailer anyone else wrote, or one inside a message, never settles a write. This is how a lost reply, or a publication whose result was never
 * recorded, is settled without a duplicate commit.
 */
export async function findLandedWrites({
  gitdir,
  head,
  writeIds,
  depth,
  cache,
  committer,
}: {
  gitdir: string;
  head: string | null;
  writeIds: readonly string[];
  depth: number;
  cache: object;
  /** `name <email>` of the configured committer. */
  committer: string;
}): Promise<Map<string, string>> {
  const wanted = new Set(writeIds);
  const landed = new Map<string, string>();
  let oid = head;
  for (let seen = 0; oid && seen < depth && landed.size < wanted.size; seen++) {
    let commit: CommitSummary;
    try {
      commit = await readCommitSummary(gitdir, oid, cache);
    } catch {
      break; // the shallow boundary: older history is not needed
    }
    if (commit.committer === committer)
      for (const id of commit.writeIds) {
        if (wanted.has(id) && !landed.has(id)) landed.set(id, oid);
      }
    oid = commit.parent;
  }
  return landed;
}
