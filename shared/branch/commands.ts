import { z } from 'zod';
import { cutTo, FIELD_CHARS } from './field-limits';
import { SCOPED_OPERATIONS } from './model';
import { pruneModeSchema } from './prune-mode';
import { FAILED_OUTCOMES, PULL_REQUEST_FAILURES } from './publication-outcome';
import { branchLimitsSchema, MAX_ATTRIBUTION_WAIT_MS, windowTimingSchema } from './settings';
import { isInstant } from './time';

const instant = z
  .string()
  .refine(isInstant, { message: 'must be an ISO-8601 instant with a zone, e.g. 2026-01-01T00:00:00Z' });
const name = z.string().min(1).max(253);
const durationMs = z.number().int().nonnegative().finite();
const bytes = z.number().int().nonnegative().finite();

/** What the host answered about the branch's pull request (the pull-request activity's result). */
export const pullRequestResultSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    outcome: z.enum(['open', 'closed']),
    pullRequest: z.strictObject({ number: z.number().int().nonnegative(), url: z.string().min(1).max(2048) }),
  }),
  z.strictObject({
    outcome: z.literal('merged'),
    pullRequest: z.strictObject({
      number: z.number().int().nonnegative(),
      url: z.string().min(1).max(2048),
      mergeCommit: z
        .string()
        .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)
        .optional(),
    }),
  }),
  z.strictObject({
    outcome: z.literal('failed'),
    cause: z.strictObject({ message: z.string().transform(cutTo(FIELD_CHARS.refusal)) }),
    /**
     * What the failure means, as a push's (`forgeFailure`). Optional: a result written before failures
     * were classified, still in a driver's history, has none and is retried as a transient one.
     */
    kind: z.enum(PULL_REQUEST_FAILURES).optional(),
    /** The host's `Retry-After` (or GitHub's rate-limit reset): the next call waits this long, bounded. */
    retryAfterMs: z.number().int().nonnegative().finite().optional(),
  }),
]);
export type PullRequestResult = z.infer<typeof pullRequestResultSchema>;

/** A commit author as the branch keeps it; the HTTP layer checks authors against it before answering. */
export const authorSchema = z.strictObject({
  name: z.string().min(1).max(FIELD_CHARS.authorName),
  email: z.string().max(FIELD_CHARS.authorEmail).optional(),
  username: z.string().max(FIELD_CHARS.username).optional(),
});

const attributionSchema = z.enum(['audit', 'watch', 'admission', 'configured', 'unresolved']);

/** A change as the branch admits it; the HTTP layer checks each change against it before answering. */
export const changeSchema = z.strictObject({
  /** Canonical path inside the target's folder. */
  path: z.string().min(1).max(FIELD_CHARS.changePath),
  operation: z.enum(['upsert', 'delete', ...SCOPED_OPERATIONS]),
  payloadRef: z.string().min(1).max(512).optional(),
  bytes,
  resourceVersion: z.string().min(1).max(FIELD_CHARS.resourceVersion).optional(),
  /**
   * The object's uid, sent for a target an Event Hubs feed records (docs/architecture.md, "Combined
   * feeds"): with the resourceVersion, it matches an audit record to the forwarder's change.
   */
  uid: z.string().min(1).max(FIELD_CHARS.objectUid).optional(),
  /** What the change is about, for the single-change commit message `[UPDATE] apps/v1/deployments/web`. */
  subject: z
    .strictObject({
      apiVersion: z.string().min(1),
      resource: z.string().min(1),
      namespace: z.string().optional(),
      name: z.string().min(1),
    })
    .optional(),
  verb: z.enum(['create', 'update', 'delete']).optional(),
  /** A collection delete's selectors as the request gave them, for its commit message. */
  selector: z.string().min(1).max(1024).optional(),
});

/** `apps/deployments`, `configmaps`: a resource as conditions name it. */
const groupResource = z.string().min(1).max(320);
const reasonCode = z.string().regex(/^[a-z][a-z0-9-]{0,63}$/);

/** Examples of events not recorded a `CountNotRecorded` carries, and a target's status keeps, at most. */
export const NOT_RECORDED_EXAMPLES = 5;
/** Resources an audit request's `CountNotRecorded` names as carrying objects, at most. */
export const AUDIT_RESOURCES_NOTED = 20;

// What a refused change was about and why: cut, never refused (refusing the refusal would lose it).
const refusalText = z.string().min(1).transform(cutTo(FIELD_CHARS.refusal));
const refusedChangeSchema = z.strictObject({
  /** The object, e.g. `apps/v1 deployments prod/web`. */
  object: refusalText,
  /** A stable kebab-case code, e.g. `value-out-of-bounds`. */
  reason: reasonCode,
  /** A sentence naming the problem; never object data. */
  message: refusalText,
});

// A remote's refusal text is unbounded; refusing a long one would leave the attempt in flight for
// good (the result could never be recorded), so it is cut to a size the state and statuses can carry.
const CAUSE_CHARS = 2048;
const failureCauseSchema = z.strictObject({
  message: z
    .string()
    .transform((message) =>
      message.length <= CAUSE_CHARS ? message : `${message.slice(0, CAUSE_CHARS - 1)}…`,
    ),
});
const commitsSchema = z.record(z.string(), z.string().min(1).nullable());

/** Writes a publication result lists at most: as many as the branch keeps recent commits. */
export const WRITTEN_LISTED = 10;

/**
 * What a write whose changes were kept beside the state (runs) came to, as the publish activity read
 * them: its subject, its first changes and how many it made; for the branch's recent commits.
 */
const writtenSchema = z
  .record(
    z.string(),
    z.strictObject({
      subject: z.string().transform(cutTo(120)),
      changes: z
        .array(
          z.strictObject({
            op: z.enum(['upsert', 'delete', ...SCOPED_OPERATIONS]),
            path: z.string().transform(cutTo(256)),
          }),
        )
        .max(3),
      count: z.number().int().nonnegative(),
    }),
  )
  .refine((written) => Object.keys(written).length <= WRITTEN_LISTED, {
    message: `lists at most ${WRITTEN_LISTED} writes`,
  });

const publicationResultSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    outcome: z.literal('published'),
    commits: commitsSchema,
    head: z.string().min(1),
    written: writtenSchema.optional(),
  }),
  z.strictObject({
    outcome: z.literal('settled'),
    commits: commitsSchema,
    head: z.string().min(1),
    written: writtenSchema.optional(),
  }),
  z.strictObject({
    outcome: z.enum(FAILED_OUTCOMES),
    cause: failureCauseSchema,
    /** The remote's `Retry-After`: the next attempt waits at least this long (within the retry maximum). */
    retryAfterMs: z.number().int().nonnegative().finite().optional(),
  }),
  z.strictObject({
    outcome: z.literal('writeRefused'),
    writeId: z.string().min(1),
    cause: failureCauseSchema,
  }),
]);

/** Every command the branch accepts, as JSON; the entity validates signals with it. */
export const branchCommandSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('AdmitChanges'),
    at: instant,
    target: name,
    author: authorSchema,
    attribution: attributionSchema,
    changes: z.array(changeSchema).min(1),
  }),
  z.strictObject({
    type: z.literal('AdmitRun'),
    at: instant,
    target: name,
    author: authorSchema,
    attribution: attributionSchema,
    /**
     * Changes kept beside the state (state version 4): `n` changes from `first` of the change list
     * stored in the batch payload `ref`, holding `bytes` payload bytes. None of them is a scoped
     * operation (those come as `AdmitChanges`, alone in their write).
     */
    run: z.strictObject({
      ref: z.string().min(1).max(512),
      first: z.number().int().nonnegative(),
      n: z.number().int().positive(),
      bytes,
    }),
  }),
  z.strictObject({
    type: z.literal('RefuseChanges'),
    at: instant,
    target: name,
    /** Changes accepted in a request's answer as refused: each named, with why it is not recorded. */
    changes: z.array(refusedChangeSchema).min(1),
  }),
  z.strictObject({
    type: z.literal('CountNotRecorded'),
    at: instant,
    target: name,
    /** Events of one request read and not recorded (ignored or excluded), by reason. */
    counts: z.record(reasonCode, z.number().int().positive()),
    /** A few of them, each named with why (cut to `NOT_RECORDED_EXAMPLES`). */
    examples: z.array(refusedChangeSchema).max(NOT_RECORDED_EXAMPLES),
    /**
     * What an audit request showed about its events' objects: the latest write event that carried
     * none (its policy level and resource), and the resources whose objects it carried.
     */
    audit: z
      .strictObject({
        objectless: z
          .strictObject({ level: z.enum(['Metadata', 'Request']), resource: groupResource })
          .optional(),
        withObjects: z.array(groupResource).max(AUDIT_RESOURCES_NOTED),
      })
      .optional(),
  }),
  z.strictObject({
    type: z.literal('RegisterSave'),
    at: instant,
    saveId: z.string().min(1).max(256),
    target: name,
    author: authorSchema,
    attribution: attributionSchema.optional(),
    message: z.string().min(1).max(1024).optional(),
    attach: z.enum(['CurrentOrNext', 'Next']).optional(),
    attachTimeoutMs: durationMs.max(300_000).optional(),
    idleTimeoutMs: durationMs.max(300_000).optional(),
    maxDurationMs: durationMs.max(300_000).optional(),
    whenNothingToCommit: z.enum(['Resolve', 'CommitEmpty']).optional(),
    request: z
      .strictObject({
        cluster: z.string().optional(),
        namespace: z.string(),
        name: z.string().min(1),
        uid: z.string().optional(),
      })
      .optional(),
  }),
  z.strictObject({
    type: z.literal('DiscardPendingWrites'),
    at: instant,
    /** Why, as the operator gave it: it is kept with every save the discard resolves. */
    reason: z.string().min(1).max(500),
  }),
  z.strictObject({
    type: z.literal('WithdrawSave'),
    at: instant,
    saveId: z.string().min(1).max(256),
    /** The target whose save it is; absent in commands sent before saves were per target. */
    target: name.optional(),
  }),
  z.strictObject({
    type: z.literal('ApplySnapshot'),
    at: instant,
    target: name,
    scope: z.strictObject({
      group: z.string().optional(),
      resource: z.string().optional(),
      namespace: z.string().optional(),
    }),
    revision: z.string().min(1).max(FIELD_CHARS.snapshotRevision),
    payloadRef: z.string().min(1).max(512),
    bytes,
    objects: z.number().int().nonnegative().optional(),
    prune: pruneModeSchema.optional(),
  }),
  z.strictObject({ type: z.literal('RefreshRemote'), at: instant }),
  z.strictObject({ type: z.literal('Tick'), at: instant }),
  z.strictObject({
    type: z.literal('RecordPublicationResult'),
    at: instant,
    attempt: z.string().min(1),
    result: publicationResultSchema,
  }),
  z.strictObject({
    type: z.literal('RecordProbeResult'),
    at: instant,
    probe: z.string().min(1),
    found: z.boolean(),
    cause: failureCauseSchema.optional(),
  }),
  z.strictObject({
    type: z.literal('RecordObservation'),
    at: instant,
    observation: z.string().min(1),
    head: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('RecordProjection'), at: instant, saveId: z.string().min(1).max(256) }),
  z.strictObject({
    type: z.literal('RecordPullRequest'),
    at: instant,
    request: z.string().min(1),
    result: pullRequestResultSchema,
  }),
  z.strictObject({
    type: z.literal('ChangeSettings'),
    at: instant,
    target: name,
    path: z.string().min(1).max(1024).optional(),
    window: windowTimingSchema.optional(),
    prune: pruneModeSchema.optional(),
    parentBranch: z.string().min(1).nullable().optional(),
    /** The configuration's `suspend`: true suspends the target, false lifts the configuration's suspension. */
    suspend: z.boolean().optional(),
    /** How long a change with no author waits for an audit record to claim it (0: it is not held). */
    attributionWaitMs: durationMs.max(MAX_ATTRIBUTION_WAIT_MS).optional(),
    /** `propose`: the branch's commits are proposed to `parentBranch` in a pull request. */
    publish: z.enum(['push', 'propose']).optional(),
  }),
  z.strictObject({ type: z.literal('SuspendTarget'), at: instant, target: name }),
  z.strictObject({ type: z.literal('ResumeTarget'), at: instant, target: name }),
  z.strictObject({ type: z.literal('ConfigureBranch'), at: instant, limits: branchLimitsSchema.partial() }),
]);

/** A command to the branch; every one carries the time `at` it is decided at. */
export type BranchCommand = z.infer<typeof branchCommandSchema>;
/** The result an activity reports for a publication attempt. */
export type PublicationResult = z.infer<typeof publicationResultSchema>;
/** What the publish activity read of the writes with runs it published (`written`). */
export type WrittenRuns = NonNullable<Extract<PublicationResult, { outcome: 'published' }>['written']>;
/** A change as admitted (before the window keeps it). */
export type AdmittedChange = z.infer<typeof changeSchema>;
/** A change refused on arrival, as `RefuseChanges` carries it. */
export type RefusedChange = z.infer<typeof refusedChangeSchema>;
/** Narrows `BranchCommand` to one type. */
export type CommandOf<T extends BranchCommand['type']> = Extract<BranchCommand, { type: T }>;
