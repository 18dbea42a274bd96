import type { GitOperation, GitWrite } from '../../../shared/git/types';

let counter = 0;

/** A pending write for tests: puts `files` (path → content) under the repository root unless told otherwise. */
export function aWrite({
  id = `w-${++counter}`,
  files = {},
  operations = [],
  message = `write ${id}`,
  targetPath = '.',
  empty,
  at = 1_750_000_000,
}: {
  id?: string;
  files?: Record<string, string>;
  operations?: GitOperation[];
  message?: string;
  targetPath?: string;
  empty?: boolean;
  at?: number;
}): GitWrite {
  const who = { name: 'Alice Example', email: 'alice@example.invalid', timestamp: at, timezoneOffset: -60 };
  return {
    id,
    message,
    author: who,
    committer: { ...who, name: 'kubescribe', email: 'kubescribe@example.invalid' },
    targetPath,
    operations: [
      ...Object.entries(files).map(([path, content]) => ({ op: 'put' as const, path, content })),
      ...operations,
    ],
    ...(empty ? { empty } : {}),
  };
}
