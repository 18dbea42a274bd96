import type { AdmittedChange, PendingWrite, WriteChange } from '../../branch';
import { type ChangeOrder, supersedes } from '../../branch/change-order';
import type { WrittenRuns } from '../../branch/commands';
import { eventMessage, groupMessage } from '../../branch/messages';
import { CHANGES_LISTED } from '../../branch/record-activity';
import { checkWritePath } from '../../git/check-write-path';
import { admittedFrom, type BatchedChange } from '../../payloads/change-batches';

/** A change of a run that was published, with its order: what the run memory keeps. */
export interface PublishedRunChange {
  writeId: string;
  target: string;
  path: string;
  order: ChangeOrder;
}

/** A change of a run left out of its write, and why. */
export interface LeftOut {
  writeId: string;
  path: string;
  reason: 'older-than-kept' | 'unsafe-path';
  detail: string;
}

/**
 * The attempt's writes with their runs read from the payload store and turned into changes, as the
 * branch decides them for changes it keeps inline (shared/branch/windows.ts): within a write the
 * newest change per path in first-seen order; a change older than the one kept for its path
 * (earlier in this attempt, or published recently: `publishedOrder`) left out by the same rule
 * (`change-order.ts`: integer resourceVersions, else receipt times, a tie to the later); a path
 * outside the write's target or unsafe left out, as the entity refuses an inline one. A write whose
 * message the branch left to its changes (empty) gets the template: the event template for one
 * change, the group template for several. `written` says, per write with runs, its subject, first
 * changes and count, which the branch keeps for its recent commits.
 */
export async function expandRuns({
  writes,
  changesOf,
  publishedOrder,
}: {
  writes: readonly PendingWrite[];
  changesOf: (ref: string) => Promise<BatchedChange[]>;
  publishedOrder: (target: string, path: string) => ChangeOrder | undefined;
}): Promise<{
  writes: PendingWrite[];
  published: PublishedRunChange[];
  leftOut: LeftOut[];
  written: Map<string, WrittenRuns[string]>;
}> {
  const written = new Map<string, WrittenRuns[string]>();
  const kept = new Map<string, ChangeOrder>();
  const published: PublishedRunChange[] = [];
  const leftOut: LeftOut[] = [];
  const expanded: PendingWrite[] = [];
  for (const write of writes) {
    const inline = write.changes ?? [];
    // an inline change was ordered by the branch when it was admitted: a run's change after it wins
    for (const change of inline) kept.set(`${write.target}\n${change.path}`, {});
    if (!write.runs) {
      expanded.push(write);
      continue;
    }
    const byPath = new Map<string, AdmittedChange>();
    for (const run of write.runs) {
      const listed = (await changesOf(run.ref)).slice(run.first, run.first + run.n);
      if (listed.length !== run.n)
        throw new RangeError(`payload ${run.ref} lists fewer changes than run ${run.first}+${run.n}`);
      for (const entry of listed) {
        const change = admittedFrom(run.ref, entry);
        const checked = checkWritePath({ path: change.path, inside: write.targetPath });
        if ('refused' in checked) {
          leftOut.push({
            writeId: write.id,
            path: change.path,
            reason: 'unsafe-path',
            detail: checked.refused,
          });
          continue;
        }
        const key = `${write.target}\n${change.path}`;
        const order: ChangeOrder = { resourceVersion: change.resourceVersion, atMs: run.atMs };
        const newest = kept.get(key) ?? publishedOrder(write.target, change.path);
        if (newest && !supersedes(order, newest)) {
          leftOut.push({
            writeId: write.id,
            path: change.path,
            reason: 'older-than-kept',
            detail: `resourceVersion ${change.resourceVersion ?? '(none)'} received ${new Date(run.atMs).toISOString()}`,
          });
          continue;
        }
        kept.set(key, order);
        // a path seen before keeps its first-seen place (a Map keeps insertion order) and takes the newer change
        byPath.set(change.path, change);
        published.push({ writeId: write.id, target: write.target, path: change.path, order });
      }
    }
    const fromRuns = [...byPath.values()];
    const changes: WriteChange[] = [
      ...inline,
      ...fromRuns.map(({ path, operation, payloadRef, bytes }) =>
        payloadRef === undefined ? { path, operation, bytes } : { path, operation, payloadRef, bytes },
      ),
    ];
    const sole = inline.length === 0 && fromRuns.length === 1 ? fromRuns[0] : undefined;
    const message =
      write.message !== ''
        ? write.message
        : sole
          ? eventMessage(sole)
          : groupMessage(write.author, write.target, changes.length);
    const { runs: _read, ...rest } = write;
    expanded.push({ ...rest, message, changes });
    const prefix = write.targetPath === '.' ? '' : `${write.targetPath}/`;
    written.set(write.id, {
      subject: message.split('\n', 1)[0] ?? '',
      changes: changes.slice(0, CHANGES_LISTED).map((change) => ({
        op: change.operation,
        path: change.path.startsWith(prefix) ? change.path.slice(prefix.length) : change.path,
      })),
      count: changes.length,
    });
  }
  return { writes: expanded, published, leftOut, written };
}
