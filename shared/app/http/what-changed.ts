import type { BranchState } from '../../branch';
import { lastHour } from '../../branch/record-activity';
import { describeObjectPath } from '../../resources/canonical-path';
import { commitWebUrl } from './commit-link';

/**
 * What changed in target `name`'s record, as its status shows it: its latest commits of those the
 * branch keeps, newest first (author, what each did to which object, the forge's page of the commit
 * in `repositoryUrl`), and its changes accepted and published per minute over the last hour, oldest
 * minute first.
 */
export function whatChanged(
  { name, repositoryUrl }: { name: string; repositoryUrl: string },
  state: BranchState | undefined,
  at: string,
) {
  const commits = (state?.recentCommits ?? [])
    .filter((commit) => commit.target === name)
    .reverse()
    .map((commit) => ({
      commit: commit.commit,
      at: commit.at,
      author: commit.author,
      subject: commit.subject,
      url: commitWebUrl(repositoryUrl, commit.commit),
      // the verb is the change's: `upsert` wrote the object as it is, the commit body says create or update
      changes: commit.changes.map((change) => ({
        verb: change.op,
        object: describeObjectPath(change.path) ?? change.path,
      })),
      more: commit.more,
    }));
  return { recentCommits: commits, perMinute: lastHour(state?.activity?.[name], Date.parse(at)) };
}
