import { readFile } from 'node:fs/promises';
import type { GitCredentials } from './credentials';
import { GitHttpRefused } from './errors';
import type { GitAuth } from './types';

/** A token file is one line (a Secret's key); anything larger is not a token. */
const MAX_TOKEN_FILE_BYTES = 16 * 1024;

/**
 * A token read from a file at each Git call (`auth.tokenFile`): a mounted Kubernetes Secret is
 * replaced on disk when the Secret changes (the kubelet swaps a symlink), and the next attempt sends
 * the new token without a restart. The file is read whole and trimmed (`kubectl create secret
 * --from-file` keeps a trailing newline). An unreadable or empty file is a refusal of the
 * credentials, naming the file, never its content.
 */
export function fileTokenCredentials({
  file,
  username,
  read = (path) => readFile(path),
}: {
  file: string;
  username?: string;
  read?: (path: string) => Promise<Buffer>;
}): GitCredentials {
  const current = async (): Promise<GitAuth> => {
    let bytes: Buffer;
    try {
      bytes = await read(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'read failed';
      throw new GitHttpRefused({
        outcome: 'authFailed',
        status: 0,
        cause: `the token file ${file} cannot be read (${code})`,
      });
    }
    const token = bytes.subarray(0, MAX_TOKEN_FILE_BYTES).toString('utf8').trim();
    if (bytes.length > MAX_TOKEN_FILE_BYTES || token === '' || /[\r\n]/.test(token)) {
      throw new GitHttpRefused({
        outcome: 'authFailed',
        status: 0,
        cause: `the token file ${file} does not hold one token (empty, several lines, or over 16 KiB)`,
      });
    }
    return username ? { username, token } : { bearer: token };
  };
  return {
    current,
    // the file may have been replaced since (a Secret updated mid-attempt): the session reads it
    // again and sends once more only when it holds another token
    refused: () => true,
  };
}
