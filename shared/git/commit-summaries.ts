import { readCheckedCommit } from './checked-objects';
import { WRITE_TRAILER } from './format-commit';

const TRAILER = new RegExp(`^${WRITE_TRAILER}: (\\S+)\\s*$`, 'gm');

/**
 * What a history walk needs of a commit. `writeIds` come only from the message's final paragraph,
 * the trailer block kubescribe appends: a trailer-like line anywhere else is text, not a claim.
 */
export type CommitSummary = {
  tree: string;
  parent: string | null;
  writeIds: string[];
  /** `name <email>` of the committer. */
  committer: string;
};

/**
 * Commits never change, so their summaries are kept by SHA (the latest 4,096) across publications:
 * a publication then reads from packs only the commits that are new since the one before, not the
 * whole walk again.
 */
const KEPT_SUMMARIES = 4096;
const summaries = new Map<string, CommitSummary>();

function keep(oid: string, summary: CommitSummary): void {
  summaries.set(oid, summary);
  for (const oldest of summaries.keys()) {
    if (summaries.size <= KEPT_SUMMARIES) break;
    summaries.delete(oldest);
  }
}

function summaryOf(commit: {
  tree: string;
  parent: string | null;
  message: string;
  committer: string;
}): CommitSummary {
  const finalBlock =
    commit.message
      .replace(/\s+$/, '')
      .split(/\n[ \t]*\n/)
      .at(-1) ?? '';
  const writeIds = [...finalBlock.matchAll(TRAILER)].map((match) => match[1]!);
  return { tree: commit.tree, parent: commit.parent, writeIds, committer: commit.committer };
}

/**
 * Keeps the summary of a commit this process built, so that the next publication's walk need not
 * read it back from a pack. `bytes` is the commit object (its message follows the first blank line).
 */
export function rememberCommit(
  oid: string,
  commit: { tree: string; parent: string | null; bytes: Buffer },
): void {
  const split = commit.bytes.indexOf('\n\n');
  const message = commit.bytes.toString('utf8', split + 2);
  const header = commit.bytes.toString('utf8', 0, split);
  const committer = /^committer (.*?>) \d+ [+-]\d{4}$/m.exec(header)?.[1] ?? '';
  keep(oid, summaryOf({ tree: commit.tree, parent: commit.parent, message, committer }));
}

/** A commit's tree, first parent and write ids; throws when the repository does not hold it. */
export async function readCommitSummary(gitdir: string, oid: string, cache: object): Promise<CommitSummary> {
  const known = summaries.get(oid);
  if (known) return known;
  const commit = await readCheckedCommit(gitdir, oid, cache);
  const summary = summaryOf({
    tree: commit.tree,
    parent: commit.parent[0] ?? null,
    message: commit.message,
    committer: `${commit.committer.name} <${commit.committer.email}>`,
  });
  keep(oid, summary);
  return summary;
}
