import type { GitIdentity } from './types';

/** The trailer that names the write a commit came from; lost replies are settled by finding it. */
export const WRITE_TRAILER = 'Kubescribe-Write';

function signature({ name, email, timestamp, timezoneOffset }: GitIdentity): string {
  const minutes = Math.abs(timezoneOffset);
  // isomorphic-git's convention: a negative offset is east of UTC
  const sign = timezoneOffset <= 0 ? '+' : '-';
  const zone = `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`;
  return `${name} <${email}> ${timestamp} ${zone}`;
}

// A line of the message that reads as one of our trailers is quoted, so no message, username or
// revision can claim a write (settlement reads only the final trailer block, which is ours).
const TRAILER_LIKE = /^(\s*kubescribe-[a-z-]*\s*:)/i;

/** The message with every line that looks like a kubescribe trailer quoted. */
export function neutraliseTrailers(message: string): string {
  return message
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(TRAILER_LIKE, '(quoted) $1'))
    .join('\n');
}

/**
 * The raw bytes of a commit object carrying the write's message plus a `Kubescribe-Write: <id>`
 * trailer. Deterministic: the same write on the same parent gives the same SHA.
 */
export function formatCommit({
  tree,
  parent,
  author,
  committer,
  message,
  writeId,
}: {
  tree: string;
  parent: string | null;
  author: GitIdentity;
  committer: GitIdentity;
  message: string;
  writeId: string;
}): Buffer {
  const body = `${neutraliseTrailers(message).replace(/\s+$/, '')}\n\n${WRITE_TRAILER}: ${writeId}\n`;
  const head = [`tree ${tree}`];
  if (parent) head.push(`parent ${parent}`);
  head.push(`author ${signature(author)}`, `committer ${signature(committer)}`);
  return Buffer.from(`${head.join('\n')}\n\n${body}`);
}
