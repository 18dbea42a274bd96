import { createHash } from 'node:crypto';
import type {
  FailedOutcome,
  PendingWrite,
  PublicationResult,
  SnapshotScope,
  WriteChange,
} from '../../branch';
import type {
  FollowingOperation,
  GitOperation,
  GitWrite,
  PublishResult,
  SnapshotFile,
} from '../../git/types';
import { snapshotPartPayloadSchema } from '../../payloads/snapshot-part';
import { CLUSTER_SCOPE_FOLDER, describeObjectPath, type PathMode } from '../../resources/canonical-path';
import { decodeSegment, portableFolder } from '../../resources/portable-path';
import {
  hasSelector,
  heldFileSelected,
  readCollectionDelete,
  readReplicas,
  withReplicas,
} from '../../resources/scoped-changes';
import { splitHeldSecret } from '../../secrets/key-escrow';
import {
  heldSecretFile,
  type KeyEscrow,
  publishedSecretFile,
  SOPS_RULES_FILE,
  sopsRules,
} from '../../secrets/secret-encryption';
import type { SopsEncryption } from '../../secrets/sops-document';

/** The committer of a repository, from the configuration. */
export interface Committer {
  name: string;
  email: string;
}

const ZERO_COMMIT = '0'.repeat(40);

/** What a publication needs to write a target's Secrets for its current recipients. */
export interface SecretFiles {
  /** The target's encryption as configured now; undefined for a target without `encryption`. */
  encryptionFor(target: string): SopsEncryption | undefined;
  escrow: KeyEscrow;
  /** Told how each Secret file was written: as held, re-wrapped, or kept (its data key unknown). */
  written?(target: string, outcome: 'unchanged' | 'rewrapped' | 'kept', path: string): void;
}

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
  secrets,
  pathsFor = () => 'native',
}: {
  writes: readonly PendingWrite[];
  committer: Committer;
  readPayload: (ref: string) => Promise<Uint8Array>;
  snapshotParts: Readonly<Record<string, readonly string[]>>;
  secrets?: SecretFiles;
  /** How each target names its files now (`native` when absent): where a snapshot sweeps. */
  pathsFor?: (target: string) => PathMode;
}): Promise<GitWrite[]> {
  const decoder = new TextDecoder();
  const text = async (ref: string) => decoder.decode(await readPayload(ref));
  const result: GitWrite[] = rotations(writes, committer, secrets);
  const secretFile = async <C extends Uint8Array | string>(write: PendingWrite, path: string, content: C) => {
    if (!SECRET_FILE.test(path)) return content;
    const held = typeof content === 'string' ? content : decoder.decode(content);
    const encryption = secrets?.encryptionFor(write.target);
    if (!encryption || !secrets) return splitHeldSecret(held).document;
    const { file, outcome } = await heldSecretFile({ content: held, encryption, escrow: secrets.escrow });
    secrets.written?.(write.target, outcome, path);
    return file;
  };
  for (const write of writes) {
    const timestamp = Math.floor(Date.parse(write.decidedAt) / 1000);
    const operations: GitOperation[] = [];
    for (const change of write.changes ?? []) {
      if (change.operation === 'delete') operations.push({ op: 'delete', path: change.path });
      else if (change.operation !== 'upsert')
        operations.push(...(await scopedOperations(write, change, text, pathsFor(write.target))));
      else if (change.payloadRef)
        // the payload's bytes as they are: a blob is bytes, so no round trip through a string
        operations.push({
          op: 'put',
          path: change.path,
          content: await secretFile(write, change.path, await readPayload(change.payloadRef)),
        });
    }
    const recipients = secrets?.encryptionFor(write.target)?.recipients;
    const lastPutSecret = operations.findLast(
      (operation): operation is SnapshotFile & { op: 'put' } =>
        operation.op === 'put' && SECRET_FILE.test(operation.path),
    );
    if (write.snapshot) {
      const refs = snapshotParts[write.snapshot.payloadRef] ?? [write.snapshot.payloadRef];
      // what the parts held beyond their files, as the last build read them
      let lastSecret: SnapshotFile | undefined;
      const deletes: string[] = [];
      // a part at a time, as the build asks for them: a cluster's snapshot never has every file's
      // text in memory at once (docs/architecture.md, "A cluster")
      async function* files(): AsyncIterable<SnapshotFile[]> {
        lastSecret = undefined;
        deletes.length = 0;
        for (const ref of refs) {
          const part = snapshotPartPayloadSchema.parse(JSON.parse(await text(ref)));
          const read: SnapshotFile[] = [];
          for (const file of part.files) {
            const content = await secretFile(write, file.path, file.content);
            read.push({ path: file.path, content });
            if (SECRET_FILE.test(file.path)) lastSecret = { path: file.path, content };
          }
          deletes.push(...part.deletes);
          yield read;
        }
      }
      const prunes = write.prune !== 'Never';
      operations.push({
        op: 'snapshot',
        ...snapshotSweep(write.targetPath, write.snapshot.scope, pathsFor(write.target)),
        files,
        prune: write.prune,
        after: () => [
          ...(prunes ? deletes.map((path) => ({ op: 'delete' as const, path })) : []),
          ...sopsRulesFor(write.targetPath, lastSecret ?? lastPutSecret, recipients),
        ],
      });
    } else operations.push(...sopsRulesFor(write.targetPath, lastPutSecret, recipients));
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
      // a window's commit lists the objects it changed; a snapshot's says how many it reconciled
      ...(write.changes ? { describe: objectsUnder(write.targetPath) } : {}),
    });
  }
  return result;
}

/**
 * The Git operations of a scoped change, evaluated against the tree as the writes before it left
 * it: a collection delete removes the canonical files of its folder that its selector matches; a
 * namespace removal its file and every canonical file under its folder (files of other shapes, a
 * README, are kept); a replica count edits the held file, and its write is refused when there is
 * none (a refused write: status, dashboard, metric and log say why).
 */
async function scopedOperations(
  write: PendingWrite,
  change: WriteChange,
  text: (ref: string) => Promise<string>,
  paths: PathMode,
): Promise<GitOperation[]> {
  switch (change.operation) {
    case 'delete-namespace': {
      // the namespace's own file name, as its path mode wrote it; the sweep encodes its folder again
      const fileName = change.path.slice(change.path.lastIndexOf('/') + 1).replace(/\.yaml$/, '');
      const namespace = paths === 'portable' ? (decodeSegment(fileName) ?? fileName) : fileName;
      return [
        { op: 'delete', path: change.path },
        { op: 'remove-matching', ...snapshotSweep(write.targetPath, { namespace }, paths) },
      ];
    }
    case 'delete-collection': {
      const collection = readCollectionDelete(await text(payloadOf(change)));
      const sweep = snapshotSweep(
        write.targetPath,
        {
          namespace: collection.namespace ?? CLUSTER_SCOPE_FOLDER,
          ...(collection.group ? { group: collection.group } : {}),
          resource: collection.resource,
        },
        paths,
      );
      const { selector } = collection;
      return [
        {
          op: 'remove-matching',
          ...sweep,
          ...(hasSelector(selector)
            ? { selects: (content: Uint8Array) => heldFileSelected(selector, content) }
            : {}),
        },
      ];
    }
    case 'set-replicas': {
      const replicas = readReplicas(await text(payloadOf(change)));
      return [
        {
          op: 'edit',
          path: change.path,
          edit: (content) => withReplicas(content, replicas),
          missing: `the replica count of ${change.path} is not recorded: no file of it is held, and a Scale alone is not the object; its next update or a resync records it`,
        },
      ];
    }
    default:
      throw new Error(`change ${change.path} has operation ${change.operation}, which is not scoped`);
  }
}

function payloadOf(change: WriteChange): string {
  if (!change.payloadRef) throw new Error(`${change.operation} of ${change.path} holds no payload`);
  return change.payloadRef;
}

/** Names the object at a repository path inside the target, as a commit body lists it. */
function objectsUnder(targetPath: string): (path: string) => string | undefined {
  const prefix = targetPath === '.' ? '' : `${targetPath}/`;
  return (path) => (path.startsWith(prefix) ? describeObjectPath(path.slice(prefix.length)) : undefined);
}

const SECRET_FILE = /(^|\/)secrets\/[^/]+\.sops\.yaml$/;
const RECIPIENT = /^ *(?:- )?recipient: "?(age1[0-9a-z]+)"?$/gm;

/**
 * A write that puts an encrypted Secret (`secret`: the last it puts) also puts the target's `.sops.yaml`, for the target's
 * current recipients (else those the last Secret written was encrypted for), so `sops` edits and
 * re-encrypts the target's files as kubescribe does. Identical bytes change nothing.
 */
function sopsRulesFor(
  targetPath: string,
  secret: SnapshotFile | undefined,
  current: readonly string[] | undefined,
): FollowingOperation[] {
  if (!secret) return [];
  const text = typeof secret.content === 'string' ? secret.content : new TextDecoder().decode(secret.content);
  const recipients = current ?? [...text.matchAll(RECIPIENT)].map((match) => match[1]!);
  if (recipients.length === 0) return [];
  return [{ op: 'put', path: rulesPath(targetPath), content: sopsRules(recipients) }];
}

const rulesPath = (targetPath: string) =>
  targetPath === '.' ? SOPS_RULES_FILE : `${targetPath}/${SOPS_RULES_FILE}`;
// A target's Secret files, relative to the target's folder: `<namespace>/secrets/<name>.sops.yaml`.
const TARGET_SECRET_FILE = '^[^/]+/secrets/[^/]+\\.sops\\.yaml$';

/**
 * A rotation for each target of the batch with encryption, before its writes: when the target's
 * `.sops.yaml` names other recipients than configured, every Secret file of the target is
 * re-wrapped for the configured ones in this one commit (the Git layer skips it, reading one file,
 * when `.sops.yaml` is current).
 */
function rotations(
  writes: readonly PendingWrite[],
  committer: Committer,
  secrets: SecretFiles | undefined,
): GitWrite[] {
  if (!secrets || writes.length === 0) return [];
  const first = writes[0]!;
  const timestamp = Math.floor(Date.parse(first.decidedAt) / 1000);
  const identity = { name: committer.name, email: committer.email, timestamp, timezoneOffset: 0 };
  const seen = new Set<string>();
  const result: GitWrite[] = [];
  for (const write of writes) {
    const encryption = secrets.encryptionFor(write.target);
    if (!encryption || seen.has(write.target)) continue;
    seen.add(write.target);
    const recipients = encryption.recipients;
    const digest = createHash('sha256').update(recipients.join('\n')).digest('hex').slice(0, 16);
    result.push({
      // named after the batch's first write as well: a retry of this batch finds it landed, and a
      // later return to these recipients (A, B, A, B) is a rotation of its own, never taken as landed
      id: `rotation.${write.target}.${digest}.${first.id}`.slice(0, 200),
      message: `Re-encrypt the Secrets of target ${write.target} for ${recipients.length} age recipient${recipients.length === 1 ? '' : 's'}`,
      author: identity,
      committer: identity,
      targetPath: write.targetPath,
      operations: [
        {
          op: 'rewrite',
          marker: { path: rulesPath(write.targetPath), content: sopsRules(recipients) },
          scope: write.targetPath,
          match: TARGET_SECRET_FILE,
          rewrite: async (path, blobOid) => {
            const { file, outcome } = await publishedSecretFile({
              blobOid,
              encryption,
              escrow: secrets.escrow,
            });
            secrets.written?.(write.target, outcome, path);
            return file;
          },
        },
      ],
    });
  }
  return result;
}

// The canonical layout (shared/resources/canonical-path.ts) as patterns over path segments: a sweep
// deletes only files of that shape, never README.md, .github/, .sops.yaml or anything else beside them.
const LABEL = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';
const GROUP = `${LABEL}(?:\\.${LABEL})*`;
// a portable segment (shared/resources/portable-path.ts): encoded, perhaps shortened; never a dot file
const PORTABLE = '[a-z0-9%][a-z0-9._%~-]*';
const LAYOUTS = {
  native: {
    namespace: `(?:_cluster|${LABEL})`,
    label: LABEL,
    anyType: `(?:${GROUP}/)?${LABEL}`,
    // a DNS subdomain, or an RBAC name with colons
    file: '[A-Za-z0-9](?:[A-Za-z0-9:._@-]*[A-Za-z0-9])?\\.yaml',
    folder: (name: string) => name,
  },
  portable: {
    namespace: `(?:_cluster|${PORTABLE})`,
    label: PORTABLE,
    anyType: `(?:${PORTABLE}/)?${PORTABLE}`,
    file: `${PORTABLE}\\.yaml`,
    folder: portableFolder,
  },
} as const;

/**
 * Where a snapshot's sweep may delete: the deepest folder its scope names, and the pattern of the
 * canonical paths inside that folder it covers
 * (`{namespace|_cluster}/{group}/{resource}/{name}.yaml`, core group omitted): nothing else a
 * repository holds is ever swept, even by an empty snapshot of a root target.
 */
export function snapshotSweep(
  targetPath: string,
  scope: SnapshotScope,
  paths: PathMode = 'native',
): { scope: string; match: string } {
  const layout = LAYOUTS[paths];
  const root = targetPath === '.' ? [] : [targetPath];
  const typeSegments = [
    ...(scope.group ? [scope.group] : []),
    ...(scope.resource ? [scope.resource] : []),
  ].map(layout.folder);
  const type = scope.resource
    ? typeSegments.map(escapeRegExp).join('/')
    : scope.group
      ? `${escapeRegExp(typeSegments[0]!)}/${layout.label}`
      : layout.anyType;
  if (scope.namespace !== undefined) {
    const namespace = layout.folder(scope.namespace);
    const folder = [...root, namespace, ...(scope.resource ? typeSegments : [])].join('/') || '.';
    return { scope: folder, match: scope.resource ? `^${layout.file}$` : `^${type}/${layout.file}$` };
  }
  return { scope: root.join('/') || '.', match: `^${layout.namespace}/${type}/${layout.file}$` };
}

function escapeRegExp(segment: string): string {
  return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function failed(outcome: FailedOutcome, message: string): PublicationResult {
  return { outcome, cause: { message } };
}

/**
 * The Git executor's result as the branch records it: the kinds both know keep their name, and the
 * Git-only ones become the branch outcome that treats them alike (a timeout is transient; a refused
 * login is `credentialsRefused`, which the status shows as Stalled).
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
      return failed('credentialsRefused', `authentication failed: ${result.cause}`);
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
