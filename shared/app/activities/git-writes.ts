import type { FailedOutcome, PendingWrite, PublicationResult, SnapshotScope } from '../../branch';
import type { GitOperation, GitWrite, PublishResult } from '../../git/types';
import { type SnapshotPartPayload, snapshotPartPayloadSchema } from '../../payloads/snapshot-part';
import { SOPS_RULES_FILE, sopsRules } from '../../secrets/secret-encryption';

/** The committer of a repository, from the configuration. */
export interface Committer {
  name: string;
  email: string;
}

const ZERO_COMMIT = '0'.repeat(40);

/**
 * Turns the branch's pending writes into the Git executor's writes: payload references become YAML
 * content, the author and committer carry the write's decision time (so a retried attempt on the
 * same parent rebuilds the same commit), and a snapshot becomes a scoped mark-and-sweep.
 * @param readPayload reads a payload's bytes by reference (the PayloadStore's `get`).
 * @param snapshotParts the part references of each multi-part snapshot, from the branch's plan.
 */
export async function toGitWrites({
  writes,
  committer,
  readPayload,
  snapshotParts,
}: {
  writes: readonly PendingWrite[];
  committer: Committer;
  readPayload: (ref: string) => Promise<Uint8Array>;
  snapshotParts: Readonly<Record<string, readonly string[]>>;
}): Promise<GitWrite[]> {
  const decoder = new TextDecoder();
  const text = async (ref: string) => decoder.decode(await readPayload(ref));
  const result: GitWrite[] = [];
  for (const write of writes) {
    const timestamp = Math.floor(Date.parse(write.decidedAt) / 1000);
    const operations: GitOperation[] = [];
    for (const change of write.changes ?? []) {
      if (change.operation === 'delete') operations.push({ op: 'delete', path: change.path });
      else if (change.payloadRef)
        // the payload's bytes as they are: a blob is bytes, so no round trip through a string
        operations.push({ op: 'put', path: change.path, content: await readPayload(change.payloadRef) });
    }
    if (write.snapshot) {
      const refs = snapshotParts[write.snapshot.payloadRef] ?? [write.snapshot.payloadRef];
      const files: SnapshotPartPayload['files'] = [];
      const deletes: string[] = [];
      for (const ref of refs) {
        const part = snapshotPartPayloadSchema.parse(JSON.parse(await text(ref)));
        files.push(...part.files);
        deletes.push(...part.deletes);
      }
      operations.push({
        op: 'snapshot',
        ...snapshotSweep(write.targetPath, write.snapshot.scope),
        files,
        prune: write.prune,
      });
      if (write.prune !== 'Never') for (const path of deletes) operations.push({ op: 'delete', path });
    }
    operations.push(...sopsRulesFor(write.targetPath, operations));
    result.push({
      id: write.id,
      message: write.message,
      // A write that names nobody (a snapshot, a change without an author) is the committer's own.
      author:
        write.attribution === 'configured'
          ? { name: committer.name, email: committer.email, timestamp, timezoneOffset: 0 }
          : {
              name: write.author.name,
              email: write.author.email ?? committer.email,
              timestamp,
              timezoneOffset: 0,
            },
      committer: { name: committer.name, email: committer.email, timestamp, timezoneOffset: 0 },
      targetPath: write.targetPath,
      operations,
      ...(write.allowEmpty || write.kind === 'save-record' ? { empty: true } : {}),
    });
  }
  return result;
}

const SECRET_FILE = /(^|\/)secrets\/[^/]+\.sops\.yaml$/;
const RECIPIENT = /^ *(?:- )?recipient: "?(age1[0-9a-z]+)"?$/gm;

/**
 * A write that puts an encrypted Secret also puts the target's `.sops.yaml`, for the recipients that
 * Secret was encrypted for (the last one written, when they differ: the newest configuration), so
 * `sops` edits and re-encrypts the target's files as kubescribe does. Identical bytes change nothing.
 */
function sopsRulesFor(targetPath: string, operations: readonly GitOperation[]): GitOperation[] {
  const files = operations.flatMap((operation) =>
    operation.op === 'put' ? [operation] : operation.op === 'snapshot' ? operation.files : [],
  );
  const secret = files.filter((file) => SECRET_FILE.test(file.path)).at(-1);
  if (!secret) return [];
  const text = typeof secret.content === 'string' ? secret.content : new TextDecoder().decode(secret.content);
  const recipients = [...text.matchAll(RECIPIENT)].map((match) => match[1]!);
  if (recipients.length === 0) return [];
  const path = targetPath === '.' ? SOPS_RULES_FILE : `${targetPath}/${SOPS_RULES_FILE}`;
  return [{ op: 'put', path, content: sopsRules(recipients) }];
}

// The canonical layout (shared/resources/canonical-path.ts) as patterns over path segments: a sweep
// deletes only files of that shape, never README.md, .github/, .sops.yaml or anything else beside them.
const LABEL = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';
const NAMESPACE = `(?:_cluster|${LABEL})`;
const GROUP = `${LABEL}(?:\\.${LABEL})*`;
const ANY_TYPE = `(?:${GROUP}/)?${LABEL}`;
// a DNS subdomain, or an RBAC name with colons
const FILE = '[A-Za-z0-9](?:[A-Za-z0-9:._@-]*[A-Za-z0-9])?\\.yaml';

/**
 * Where a snapshot's sweep may delete: the deepest folder its scope names, and the pattern of the
 * canonical paths inside that folder it covers
 * (`{namespace|_cluster}/{group}/{resource}/{name}.yaml`, core group omitted): nothing else a
 * repository holds is ever swept, even by an empty snapshot of a root target.
 */
export function snapshotSweep(targetPath: string, scope: SnapshotScope): { scope: string; match: string } {
  const root = targetPath === '.' ? [] : [targetPath];
  const typeSegments = [...(scope.group ? [scope.group] : []), ...(scope.resource ? [scope.resource] : [])];
  const type = scope.resource
    ? typeSegments.map(escapeRegExp).join('/')
    : scope.group
      ? `${escapeRegExp(scope.group)}/${LABEL}`
      : ANY_TYPE;
  if (scope.namespace !== undefined) {
    const folder = [...root, scope.namespace, ...(scope.resource ? typeSegments : [])].join('/') || '.';
    return { scope: folder, match: scope.resource ? `^${FILE}$` : `^${type}/${FILE}$` };
  }
  return { scope: root.join('/') || '.', match: `^${NAMESPACE}/${type}/${FILE}$` };
}

function escapeRegExp(segment: string): string {
  return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function failed(outcome: FailedOutcome, message: string): PublicationResult {
  return { outcome, cause: { message } };
}

/**
 * The Git executor's result as the branch records it: the kinds both know keep their name, and the
 * Git-only ones become the branch outcome that treats them alike (a timeout is transient, a refused
 * login is rejected).
 */
export function toPublicationResult(result: PublishResult): PublicationResult {
  switch (result.kind) {
    case 'published':
      return {
        outcome: result.settledByRemoteEvidence ? 'settled' : 'published',
        commits: result.commits,
        head: result.head ?? ZERO_COMMIT,
      };
    case 'remoteMoved':
      return failed(result.kind, `the remote kept moving: ${result.cause}`);
    case 'transient':
      return {
        ...failed(result.kind, `${result.step}: ${result.cause}`),
        ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
      };
    case 'timeout':
      return failed('transient', `${result.step} timed out after ${result.afterMs} ms`);
    case 'rejected':
      return failed(result.kind, result.cause);
    case 'authFailed':
      return failed('rejected', `authentication failed: ${result.cause}`);
    case 'parentMissing':
      return failed(
        result.kind,
        result.parentBranch
          ? `the parent branch "${result.parentBranch}" does not exist`
          : 'the repository has no default branch to start from',
      );
    case 'writeRefused':
      return { outcome: result.kind, writeId: result.writeId, cause: { message: result.cause } };
  }
}
