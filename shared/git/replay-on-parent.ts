import * as git from 'isomorphic-git';
import { readCheckedCommit } from './checked-objects';
import { readCommitSummary, rememberCommit } from './commit-summaries';
import { formatCommit } from './format-commit';
import { readingFs } from './known-objects';
import type { ObjectStore } from './object-store';
import type { CommitSigner } from './signing/commit-signer';
import { signCommit } from './signing/sign-commit';
import { createTreeEditor, type ReadTree } from './tree-editor';

/** A file a commit changed: its blob and mode after the commit, or null where it deleted it. */
type FileChange = { segments: string[]; blob: { oid: string; mode: string } | null };

/**
 * A proposed branch whose base moved: kubescribe's own commits on it (first parent, down to the
 * first commit it did not make) are made again, oldest first, on the base's new head, each with its
 * author, committer, message and trailer, its files as it left them (kubescribe's version of a file
 * wins, as a write replayed on a moved remote does), signed again with `signer`. A commit that
 * changes nothing on the new base (the base holds it already) is left out.
 *
 * Undefined when there is nothing to replay: the branch already starts from `onto`, its own
 * commits sit on a commit the base does not hold (whatever is below them would be lost), or the
 * history needed is beyond the local cache.
 */
export async function replayOnParent({
  gitdir,
  tip,
  onto,
  committer,
  depth,
  cache,
  readTree,
  store,
  signer,
}: {
  gitdir: string;
  tip: string;
  onto: string;
  /** `name <email>` of the configured committer: its commits with a write trailer are kubescribe's. */
  committer: string;
  depth: number;
  cache: object;
  readTree: ReadTree;
  store: ObjectStore;
  signer: CommitSigner | undefined;
}): Promise<{ head: string; tree: string } | undefined> {
  const own: string[] = [];
  let fork: string | null = tip;
  try {
    while (fork && own.length < depth) {
      const summary = await readCommitSummary(gitdir, fork, cache);
      if (summary.committer !== committer || summary.writeIds.length === 0) break;
      own.unshift(fork);
      fork = summary.parent;
    }
  } catch {
    return undefined; // beyond the cache's shallow history
  }
  if (own.length === 0 || fork === null || fork === onto) return undefined;
  const held = await git
    .isDescendent({ fs: readingFs(gitdir), gitdir, oid: onto, ancestor: fork, depth, cache })
    .catch(() => false);
  if (!held) return undefined;

  const ontoTree = (await readCommitSummary(gitdir, onto, cache)).tree;
  const editor = createTreeEditor({ rootTree: ontoTree, readTree, store, viewScope: gitdir });
  let head = onto;
  let tree = ontoTree;
  for (const oid of own) {
    const commit = await readCheckedCommit(gitdir, oid, cache);
    const parentTree = commit.parent[0]
      ? (await readCommitSummary(gitdir, commit.parent[0], cache)).tree
      : null;
    for (const change of await changedFiles(parentTree, commit.tree, readTree, [])) {
      if (change.blob) await editor.putBlob(change.segments, change.blob.oid, change.blob.mode);
      else await editor.remove(change.segments);
    }
    const next = editor.writeTree();
    if (next === tree) continue;
    const summary = await readCommitSummary(gitdir, oid, cache);
    const unsigned = formatCommit({
      tree: next,
      parent: head,
      author: identityOf(commit.author),
      committer: identityOf(commit.committer),
      message: withoutTrailerBlock(commit.message),
      writeId: summary.writeIds[0]!,
    });
    const bytes = signer ? signCommit(unsigned, signer) : unsigned;
    const made = store.add('commit', bytes);
    rememberCommit(made, { tree: next, parent: head, bytes });
    head = made;
    tree = next;
  }
  editor.keep();
  return head === onto ? undefined : { head, tree };
}

function identityOf(person: git.CommitObject['author']) {
  return {
    name: person.name,
    email: person.email,
    timestamp: person.timestamp,
    timezoneOffset: person.timezoneOffset,
  };
}

/** The message without the trailer block kubescribe appended (formatCommit appends it again). */
function withoutTrailerBlock(message: string): string {
  const paragraphs = message.replace(/\s+$/, '').split(/\n[ \t]*\n/);
  return paragraphs.slice(0, -1).join('\n\n');
}

/** The files that differ between two trees, reading only the subtrees whose SHAs differ. */
async function changedFiles(
  before: string | null,
  after: string,
  readTree: ReadTree,
  prefix: string[],
): Promise<FileChange[]> {
  if (before === after) return [];
  const old = new Map((before ? await readTree(before) : []).map((e) => [e.path, e]));
  const now = new Map((await readTree(after)).map((e) => [e.path, e]));
  const changes: FileChange[] = [];
  for (const [name, entry] of now) {
    const was = old.get(name);
    const segments = [...prefix, name];
    if (entry.type === 'tree') {
      if (was?.type !== 'tree' && was) changes.push({ segments, blob: null });
      changes.push(
        ...(await changedFiles(was?.type === 'tree' ? was.oid : null, entry.oid, readTree, segments)),
      );
    } else if (entry.type === 'blob' && (was?.oid !== entry.oid || was.mode !== entry.mode)) {
      if (was?.type === 'tree') changes.push(...(await removedFiles(was.oid, readTree, segments)));
      changes.push({ segments, blob: { oid: entry.oid, mode: entry.mode } });
    }
  }
  for (const [name, was] of old) {
    if (now.has(name)) continue;
    const segments = [...prefix, name];
    if (was.type === 'tree') changes.push(...(await removedFiles(was.oid, readTree, segments)));
    else changes.push({ segments, blob: null });
  }
  return changes;
}

async function removedFiles(tree: string, readTree: ReadTree, prefix: string[]): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const entry of await readTree(tree)) {
    const segments = [...prefix, entry.path];
    if (entry.type === 'tree') changes.push(...(await removedFiles(entry.oid, readTree, segments)));
    else changes.push({ segments, blob: null });
  }
  return changes;
}
