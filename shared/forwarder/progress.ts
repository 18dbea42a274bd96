import type { ForwarderLog } from './runtime';

/** Reports the initial snapshot's progress per scope. */
export interface SnapshotProgress {
  advanced(scope: string, posted: number, total: number | undefined): void;
  done(scope: string, objects: number): void;
}

const BAR_WIDTH = 30;

/**
 * On a terminal, one redrawn bar line per scope (`apps/v1/deployments@* [#####.....] 1200/10000`);
 * elsewhere (a pod's log), a plain `SnapshotPartPosted` log line per part.
 */
export function createProgress({
  stream,
  log,
}: {
  stream: { isTTY?: boolean; write(text: string): unknown };
  log: ForwarderLog;
}): SnapshotProgress {
  if (!stream.isTTY) {
    return {
      advanced: (scope, posted, total) =>
        log('SnapshotPartPosted', { scope, posted, ...(total === undefined ? {} : { total }) }),
      done: () => {},
    };
  }
  return {
    advanced(scope, posted, total) {
      const bar =
        total === undefined || total === 0
          ? ''
          : `[${'#'.repeat(Math.round((Math.min(posted, total) / total) * BAR_WIDTH)).padEnd(BAR_WIDTH, '.')}] `;
      stream.write(`\r${scope} ${bar}${posted}${total === undefined ? '' : `/${total}`} objects\x1b[K`);
    },
    done(scope, objects) {
      stream.write(`\r${scope} done: ${objects} objects\x1b[K\n`);
    },
  };
}
