import type { CommitSigner } from './commit-signer';

/**
 * The commit with its signature in a `gpgsig` header, as `git commit -S` writes it: the signature
 * covers the finished commit as it was (headers and message), and each line after the header's
 * first is continued with a space. The committer's time is the signature's, so the same commit
 * signs to the same bytes.
 */
export function signCommit(commit: Buffer, signer: CommitSigner): Buffer {
  const headerEnd = commit.indexOf('\n\n');
  if (headerEnd < 0) throw new Error('a commit without a message cannot be signed');
  const header = commit.toString('utf8', 0, headerEnd);
  const committedAt = /^committer .*> (\d+) [+-]\d{4}$/m.exec(header);
  if (!committedAt) throw new Error('a commit without a committer cannot be signed');
  const signature = signer.sign(commit, Number(committedAt[1]));
  const folded = signature.replace(/\n$/, '').split('\n').join('\n ');
  return Buffer.concat([
    commit.subarray(0, headerEnd),
    Buffer.from(`\ngpgsig ${folded}`),
    commit.subarray(headerEnd),
  ]);
}
