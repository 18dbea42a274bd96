import { z } from 'zod';
import { pruneModeSchema } from '../branch/prune-mode';
import type { PublicationOutcome } from '../branch/publication-outcome';

/** Token credentials for an http(s) remote: Basic (username + token) or a Bearer token. */
export const GitAuthSchema = z.union([
  z.object({ username: z.string().min(1), token: z.string().min(1) }).strict(),
  z.object({ bearer: z.string().min(1) }).strict(),
]);
export type GitAuth = z.infer<typeof GitAuthSchema>;

export const GitRemoteSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('http'), url: z.string().url(), auth: GitAuthSchema.optional() }).strict(),
  z.object({ kind: z.literal('local'), path: z.string().min(1) }).strict(),
]);
/** Where a branch is published: an http(s) smart-HTTP URL, or a bare repository on a local disk. */
export type GitRemote = z.infer<typeof GitRemoteSchema>;

const noLineBreak = (what: string) =>
  z.string().refine((s) => !/[\n\r\0]/.test(s), `${what} has a line break`);
const IdentitySchema = z
  .object({
    name: noLineBreak('name').refine((s) => !/[<>]/.test(s), 'name contains < or >'),
    email: noLineBreak('email').refine((s) => !/[<>]/.test(s), 'email contains < or >'),
    /** Seconds since the epoch. */
    timestamp: z.number().int().nonnegative(),
    /** Minutes, with isomorphic-git's (and `Date#getTimezoneOffset`'s) sign: -120 means +0200. */
    timezoneOffset: z.number().int().min(-1440).max(1440),
  })
  .strict();
export type GitIdentity = z.infer<typeof IdentitySchema>;

const ContentSchema = z.union([
  z.string(),
  z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be text or bytes'),
]);

const SnapshotFileSchema = z.object({ path: z.string(), content: ContentSchema }).strict();
/** A file of a snapshot: its repository path and its bytes. */
export type SnapshotFile = z.infer<typeof SnapshotFileSchema>;
/** A snapshot's files, part by part, read as they are asked for. */
export type SnapshotParts = () => AsyncIterable<readonly SnapshotFile[]>;
/** An operation a snapshot's parts decide, applied after its files. */
export type FollowingOperation =
  | { op: 'put'; path: string; content: string | Uint8Array }
  | { op: 'delete'; path: string };

export const GitOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('put'), path: z.string(), content: ContentSchema }).strict(),
  z.object({ op: z.literal('delete'), path: z.string() }).strict(),
  z
    .object({
      op: z.literal('snapshot'),
      scope: z.string(),
      /**
       * Which files under `scope` the snapshot covers, as a regular expression over their path
       * relative to `scope` (all of them when absent): a per-type scope across namespaces is no folder.
       */
      match: z
        .string()
        .max(512)
        .refine((source) => {
          try {
            new RegExp(source);
            return true;
          } catch {
            return false;
          }
        }, 'not a regular expression')
        .optional(),
      /**
       * The files the snapshot holds: a list, or its parts to read one after another (each build
       * reads them anew: a publication's attempts rebuild), so a cluster's snapshot never has more
       * than one part's texts in memory.
       */
      files: z.union([
        z.array(SnapshotFileSchema),
        z.custom<SnapshotParts>((value) => typeof value === 'function', 'must be a list or a function'),
      ]),
      prune: pruneModeSchema,
      /**
       * The puts and deletes that what the parts held decides (the deletes they name, the target's
       * `.sops.yaml` for the Secrets they wrote), asked for once every file is in and applied then.
       */
      after: z
        .custom<() => FollowingOperation[]>((value) => typeof value === 'function', 'must be a function')
        .optional(),
    })
    .strict(),
  z
    .object({
      op: z.literal('rewrite'),
      /**
       * Says whether the files are stale: when the file at `marker.path` is absent (no such files
       * were ever written) or has `marker.content` already, nothing else is read or written.
       * Otherwise every file under `scope` whose path relative to it matches `match` is given to
       * `rewrite` by its blob SHA (the object cache keeps no blobs: nothing is read from Git), which
       * answers its new bytes or undefined to leave it; then the marker is put.
       */
      marker: z.object({ path: z.string(), content: ContentSchema }).strict(),
      scope: z.string(),
      match: z.string().max(512),
      rewrite: z.custom<(path: string, blobOid: string) => Promise<Uint8Array | string | undefined>>(
        (value) => typeof value === 'function',
        'must be a function',
      ),
    })
    .strict(),
  z
    .object({
      op: z.literal('remove-matching'),
      /** The folder whose files are considered; nothing outside it is read or removed. */
      scope: z.string(),
      /** Which files under `scope` are considered, as a regular expression over their path relative to it. */
      match: z.string().max(512),
      /** Given a considered file's bytes, whether to remove it; every considered file is removed when absent. */
      selects: z
        .custom<(content: Uint8Array) => boolean>(
          (value) => typeof value === 'function',
          'must be a function',
        )
        .optional(),
    })
    .strict(),
  z
    .object({
      op: z.literal('edit'),
      path: z.string(),
      /**
       * The file's new bytes from its current ones (undefined leaves it); never called when there is
       * no file at `path`: an edit never creates a file.
       */
      edit: z.custom<(content: Uint8Array) => Uint8Array | string | undefined>(
        (value) => typeof value === 'function',
        'must be a function',
      ),
      /**
       * Why the write cannot be published when there is no file at `path`: the write is refused
       * with it (an edit is alone in its write, so nothing else is refused with it).
       */
      missing: z.string().min(1),
    })
    .strict(),
]);
/**
 * One change to the tree: put a file, delete a path, apply a scoped snapshot (mark and sweep),
 * rewrite the files of a folder that a marker file says are stale (a target's Secrets re-wrapped),
 * remove the files of a folder a selector matches (a collection delete, a namespace removal), or
 * edit a file that is held (a replica count set through `scale`).
 */
export type GitOperation = z.infer<typeof GitOperationSchema>;

export const GitWriteSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._:@+-]{1,200}$/, 'write id must be 1-200 URL-safe characters'),
    message: z.string().min(1),
    author: IdentitySchema,
    committer: IdentitySchema,
    /** Repository-relative folder every operation must stay inside; '.' is the repository root. */
    targetPath: z.string().min(1),
    operations: z.array(GitOperationSchema),
    /** An empty save record: always commits, even when the tree does not change. */
    empty: z.boolean().optional(),
    /**
     * Names the object a file is, as the commit's body lists what the commit created, updated and
     * deleted (undefined for a file that is no object's); without it the message is as given.
     */
    describe: z
      .custom<(path: string) => string | undefined>(
        (value) => typeof value === 'function',
        'must be a function',
      )
      .optional(),
  })
  .strict();
/** A pending write: becomes exactly one commit, or none when it changes nothing. */
export type GitWrite = z.infer<typeof GitWriteSchema>;

export const BranchNameSchema = z
  .string()
  .regex(/^(?!\/|.*\/\/|.*\.\.|.*\.lock$|.*[/.]$)[A-Za-z0-9._/-]+$/, 'not a valid branch name');

/** Injected time source: deadlines are armed through it, so tests can drive them. */
export type Clock = {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The Git step a timeout or failure happened in. */
export type GitStep = 'advertise' | 'fetch' | 'push' | 'probe' | 'lock' | 'publication';

/** A kind the Git result shares with the branch's command, spelled as the branch spells it. */
type Outcome<K extends PublicationOutcome> = K;

/** What a publication ended with. Never thrown: every outcome is data. */
export type PublishResult =
  | {
      kind: Outcome<'published'>;
      /** Per write: the commit SHA, or null when the write changed nothing. */
      commits: Record<string, string | null>;
      /** The remote branch head after the publication (null: an empty repository stayed empty). */
      head: string | null;
      /** True when a lost reply (or an earlier, unrecorded publication) was settled by finding our commits on the remote. */
      settledByRemoteEvidence: boolean;
      attempts: number;
    }
  | { kind: Outcome<'remoteMoved'>; attempts: number; cause: string }
  | {
      kind: Outcome<'transient'>;
      step: GitStep;
      cause: string;
      /** The server's `Retry-After` (HTTP 429/503), in ms: the earliest a retry is worth it. */
      retryAfterMs?: number;
    }
  | { kind: Outcome<'rejected'>; cause: string }
  | { kind: 'authFailed'; cause: string }
  | { kind: Outcome<'parentMissing'>; parentBranch: string | null }
  | { kind: 'timeout'; step: GitStep; afterMs: number }
  | { kind: Outcome<'writeRefused'>; writeId: string; cause: string };
