import * as git from 'isomorphic-git';
import { z } from 'zod';
import { buildCommits } from './build-commits';
import { readCheckedTree } from './checked-objects';
import { classifyFailure, refusalResult } from './classify-failure';
import { readCommitSummary } from './commit-summaries';
import type { GitCredentials } from './credentials';
import { GitPublishInputInvalid, GitStepTimedOut, GitTipMoved } from './errors';
import { findLandedWrites } from './find-landed-writes';
import { forgetReadCache, keptReadCache, leanReadCache } from './kept-read-cache';
import { readingFs } from './known-objects';
import { type ObjectStore, openSpillingObjectStore } from './object-store';
import { openHttpSession } from './open-http-session';
import { openLocalSession } from './open-local-session';
import type { Advertisement, PushOpening, RemoteSession } from './remote-session';
import { replayOnParent } from './replay-on-parent';
import type { CommitSigner } from './signing/commit-signer';
import {
  BranchNameSchema,
  type Clock,
  GitRemoteSchema,
  type GitStep,
  type GitWrite,
  GitWriteSchema,
  type PublishResult,
  systemClock,
} from './types';

const PublishInputSchema = z
  .object({
    remote: GitRemoteSchema,
    branch: BranchNameSchema,
    parentBranch: BranchNameSchema.optional(),
    /**
     * Build on `parentBranch`'s head even where `branch` exists, and replace it (a compare-and-swap
     * against its tip): a proposed branch whose pull request ended starts again from its base.
     */
    restartFromParent: z.boolean().default(false),
    /**
     * When `parentBranch` moved past where `branch`'s own commits start, make them again on its
     * head before the writes (a proposed branch whose base moved: `replayOnParent`).
     */
    replayOnParent: z.boolean().default(false),
    // each write is checked on its own below: one that can never be published is refused, not thrown
    writes: z.array(z.looseObject({ id: GitWriteSchema.shape.id })).min(1),
    cacheDir: z.string().min(1),
    callTimeoutMs: z.number().int().positive().default(120_000),
    publishTimeoutMs: z.number().int().positive().default(300_000),
    maxAttempts: z.number().int().min(1).max(10).default(3),
    historyDepth: z.number().int().min(1).max(1000).default(50),
    /** A file larger than this is refused (GitHub's hard limit: 100 MiB). */
    maxObjectBytes: z
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
  })
  .strict()
  .refine(
    (input) => new Set(input.writes.map((w) => w.id)).size === input.writes.length,
    'write ids must be unique',
  );

/**
 * What `publish` takes: see docs/git-executor.md. `clock`, `signal`, `credentials` (a provider
 * of expiring tokens, used instead of `remote.auth`) and `signer` (the repository's signing key,
 * docs/signing.md) are effects, not data.
 */
export type PublishInput = z.input<typeof PublishInputSchema> & {
  clock?: Clock;
  signal?: AbortSignal;
  credentials?: GitCredentials;
  signer?: CommitSigner | undefined;
};

/**
 * Each write against the executor's contract; the first that breaks it (an identity Git refuses, an
 * empty message, a malformed operation) is refused by its id, so it is set aside instead of failing
 * every publication after it.
 */
function checkWrites(
  writes: readonly { id: string }[],
): { writes: GitWrite[] } | { writeRefused: Extract<PublishResult, { kind: 'writeRefused' }> } {
  const valid: GitWrite[] = [];
  for (const write of writes) {
    const parsed = GitWriteSchema.safeParse(write);
    if (!parsed.success) {
      const cause = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      return { writeRefused: { kind: 'writeRefused', writeId: write.id, cause } };
    }
    valid.push(parsed.data);
  }
  return { writes: valid };
}

/**
 * Where the writes start: the branch's tip, else its parent's (or the default branch's), else
 * nothing. `replaces`: the tip of the branch a restart replaces (null: there is none).
 */
type Start =
  | { base: string | null; source: string; branchExists: boolean; replaces?: string | null }
  | { parentMissing: string | null };

function startingPoint(
  ad: Advertisement,
  branch: string,
  parentBranch: string | undefined,
  restart: boolean,
): Start {
  const tip = ad.heads.get(branch);
  if (tip && !restart) return { base: tip, source: branch, branchExists: true };
  if (parentBranch) {
    const parent = ad.heads.get(parentBranch);
    return parent
      ? { base: parent, source: parentBranch, branchExists: false, replaces: tip ?? null }
      : { parentMissing: parentBranch };
  }
  const fallback = ad.defaultBranch ? ad.heads.get(ad.defaultBranch) : undefined;
  if (fallback && ad.defaultBranch) return { base: fallback, source: ad.defaultBranch, branchExists: false };
  return ad.empty || ad.heads.size === 0
    ? { base: null, source: branch, branchExists: false }
    : { parentMissing: null };
}

/**
 * Lands the ordered writes on `branch` as one commit per write (a write that changes nothing makes
 * none; an empty save record always commits), with a compare-and-swap push against the head they
 * were built on; when the remote moved, rebuilds them on the new head (up to `maxAttempts`).
 * Every network call is bounded by `callTimeoutMs` and the whole publication by `publishTimeoutMs`.
 * Never throws for a Git outcome: the result says what happened. Throws GitPublishInputInvalid for
 * a malformed input (a caller bug).
 *
 * @example
 * const result = await publish({ remote: { kind: 'http', url, auth: { bearer } }, branch: 'main', writes, cacheDir });
 * if (result.kind === 'published') record(result.commits, result.head);
 */
export async function publish({
  clock = systemClock,
  signal,
  credentials,
  signer,
  ...input
}: PublishInput): Promise<PublishResult> {
  const parsed = PublishInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new GitPublishInputInvalid({
      issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
    });
  }
  const checked = checkWrites(parsed.data.writes);
  if ('writeRefused' in checked) return checked.writeRefused;
  const options = { ...parsed.data, writes: checked.writes };
  const total = new AbortController();
  const timer = clock.setTimeout(
    () => total.abort(new GitStepTimedOut({ step: 'publication', afterMs: options.publishTimeoutMs })),
    options.publishTimeoutMs,
  );
  const cancel = () => total.abort(signal?.reason ?? new Error('publication cancelled by the caller'));
  if (signal?.aborted) cancel();
  else signal?.addEventListener('abort', cancel, { once: true });
  const session: RemoteSession =
    options.remote.kind === 'http'
      ? openHttpSession({
          remote: options.remote,
          ...(credentials ? { credentials } : {}),
          branch: options.branch,
          cacheDir: options.cacheDir,
          clock,
          callTimeoutMs: options.callTimeoutMs,
          signal: total.signal,
          historyDepth: options.historyDepth,
        })
      : openLocalSession({
          remote: options.remote,
          clock,
          callTimeoutMs: options.callTimeoutMs,
          signal: total.signal,
        });
  const progress: { step: GitStep } = { step: 'advertise' };
  const startedAt = clock.now();
  const run = async (): Promise<PublishResult> => {
    try {
      return await publishAttempts({ ...options, session, progress, deadline: total.signal, signer });
    } catch (error) {
      // what failed may be a read through the kept cache: the next attempt reads the packs afresh
      await session.gitdir().then(forgetReadCache, () => undefined);
      const reason: unknown = total.signal.aborted ? total.signal.reason : error;
      return classifyFailure({
        error: reason instanceof GitStepTimedOut ? reason : error,
        step: progress.step,
      });
    }
  };
  try {
    const first = await run();
    if (first.kind !== 'transient' || first.retryAfterMs === undefined) return first;
    // The server said when to come back (429/503 Retry-After): when that wait leaves at least half
    // of the publication's bound for the retry, wait here once; otherwise the hint goes back with
    // the result for the caller's own backoff.
    const left = startedAt + options.publishTimeoutMs - clock.now();
    if (first.retryAfterMs > left / 2) return first;
    if (await waitFor(first.retryAfterMs, clock, total.signal)) return await run();
    const reason: unknown = total.signal.reason;
    return reason instanceof GitStepTimedOut
      ? classifyFailure({ error: reason, step: progress.step })
      : first;
  } finally {
    clock.clearTimeout(timer);
    signal?.removeEventListener('abort', cancel);
  }
}

/** Resolves true after `ms` on `clock`, or false as soon as `signal` fires. */
function waitFor(ms: number, clock: Clock, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const stop = () => {
      clock.clearTimeout(timer);
      resolve(false);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

type Attempts = Omit<z.output<typeof PublishInputSchema>, 'writes'> & {
  writes: GitWrite[];
  session: RemoteSession;
  signer: CommitSigner | undefined;
  progress: { step: GitStep };
  /** Fires when the whole publication is out of time or cancelled. */
  deadline: AbortSignal;
};

/**
 * The attempts, each building into an object store spilled beside the branch's cache: an attempt's
 * store is closed when the next one opens its own, and the last whatever the way out (published,
 * refused, failed, out of time), so no spill file outlives its publication. The read cache they
 * read through keeps only its parsed indexes after them (`leanReadCache`): a worker holds the
 * packs of the branch it is publishing to, not of every branch it published to.
 */
async function publishAttempts(args: Attempts): Promise<PublishResult> {
  const held: AttemptHeld = {};
  try {
    return await attemptsOf({ ...args, held });
  } finally {
    held.opening?.cancel();
    await held.store?.close();
    if (held.readFrom) await leanReadCache(held.readFrom);
  }
}

async function attemptsOf({
  session,
  branch,
  parentBranch,
  restartFromParent,
  replayOnParent: replayOwnCommits,
  writes,
  maxAttempts,
  historyDepth,
  progress,
  deadline,
  maxObjectBytes,
  signer,
  cacheDir,
  held,
}: Attempts & { held: AttemptHeld }): Promise<PublishResult> {
  const ids = writes.map((w) => w.id);
  let lastMove = '';
  // With a warm cache, first try the tip we last saw without asking the remote: the push is a
  // compare-and-swap, so a wrong guess costs one rejected POST and is not counted as an attempt.
  // a restart or a replay needs the parent's head: the listing, never a guess
  let guess = restartFromParent || replayOwnCommits ? null : await session.knownTip({ branch });
  // a listing taken after a refused push: the next attempt starts from it instead of asking again
  let listed: Advertisement | null = null;
  let filesObtained = false;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    held.opening?.cancel();
    held.opening = undefined;
    progress.step = 'advertise';
    const listing = guess ? null : (listed ?? (await session.advertise({ step: 'advertise' })));
    const start: Start = listing
      ? startingPoint(listing, branch, parentBranch, restartFromParent)
      : { base: guess, source: branch, branchExists: true };
    const parentHead = replayOwnCommits && parentBranch ? (listing?.heads.get(parentBranch) ?? null) : null;
    const guessed = guess !== null;
    guess = null;
    listed = null;
    if ('parentMissing' in start) return { kind: 'parentMissing', parentBranch: start.parentMissing };
    const { source, branchExists } = start;
    progress.step = 'fetch';
    let obtained: Awaited<ReturnType<RemoteSession['obtain']>> | null = null;
    try {
      obtained = start.base ? await session.obtain({ branch: source, tip: start.base }) : null;
    } catch (error) {
      if (!(error instanceof GitTipMoved)) throw error;
      lastMove = error.message;
      continue;
    }
    const base = obtained?.tip ?? null;
    // where the branch is before this push: what the compare-and-swap and the probes expect
    const before = branchExists ? base : (start.replaces ?? null);
    const gitdir = obtained?.gitdir ?? (await session.gitdir());
    held.readFrom = gitdir;
    // the push's request goes out now, and the server starts on it while the commits are built
    if (!parentHead && quickToBuild(writes)) held.opening = session.openPush?.({ branch });
    // the cache that read the fetched tip, else the branch's kept one: pack indexes parsed once
    const cache = obtained?.cache ?? (await keptReadCache(gitdir));
    // a new branch cannot hold our writes yet; an existing one may (lost reply, unrecorded result)
    const landed = branchExists
      ? await findLandedWrites({
          gitdir,
          head: base,
          writeIds: ids,
          depth: historyDepth,
          cache,
          committer: `${writes[0]!.committer.name} <${writes[0]!.committer.email}>`,
        })
      : new Map<string, string>();
    await held.store?.close();
    const store = await openSpillingObjectStore({ spillDir: cacheDir });
    held.store = store;
    const readTree = (oid: string) => readCheckedTree(gitdir, oid, cache);
    // a lost reply is settled on the branch as it is before anything is replayed
    let replayed: { head: string; tree: string } | undefined;
    if (parentHead && parentBranch && branchExists && base && landed.size === 0) {
      progress.step = 'fetch';
      try {
        await session.obtain({ branch: parentBranch, tip: parentHead });
      } catch (error) {
        if (!(error instanceof GitTipMoved)) throw error;
        lastMove = error.message;
        continue;
      }
      replayed = await replayOnParent({
        gitdir,
        tip: base,
        onto: parentHead,
        committer: `${writes[0]!.committer.name} <${writes[0]!.committer.email}>`,
        depth: historyDepth,
        cache,
        readTree,
        store,
        signer,
      });
    }
    const buildBase = replayed?.head ?? base;
    const baseTree = replayed?.tree ?? (base ? (await readCommitSummary(gitdir, base, cache)).tree : null);
    const built = await buildCommits({
      viewScope: gitdir,
      base: buildBase,
      baseTree,
      writes,
      landed,
      store,
      maxObjectBytes,
      signer,
      readTree,
      readBlob: async (oid) => {
        try {
          return (await git.readBlob({ fs: readingFs(gitdir), gitdir, oid, cache })).blob;
        } catch (error) {
          if (error instanceof git.Errors.NotFoundError) throw new BlobMissing(oid);
          throw error;
        }
      },
    }).catch(async (error: unknown) => {
      // a cache of an earlier release holds no blob it pushed: fetched again whole, once, then rebuilt
      if (!(error instanceof BlobMissing) || filesObtained || !start.base) throw error;
      filesObtained = true;
      await session.obtainFiles({ branch: source, tip: start.base });
      return 'again' as const;
    });
    if (built === 'again') {
      attempt--;
      continue;
    }
    if (built.kind === 'writeRefused') return built;
    const settled = landed.size > 0;
    const published = (at: string | null, settledByRemoteEvidence: boolean): PublishResult => ({
      kind: 'published',
      commits: built.commits,
      head: at,
      settledByRemoteEvidence,
      attempts: attempt,
    });
    if (built.created === 0 && !replayed) {
      return published(base, settled);
    }
    const head = built.head!;
    progress.step = 'push';
    let outcome: Awaited<ReturnType<RemoteSession['push']>>;
    try {
      const update = {
        oldOid: before,
        newOid: head,
        store,
        ...(built.headCommit ? { headCommit: built.headCommit } : {}),
      };
      outcome = await (held.opening ? held.opening.push(update) : session.push({ branch, ...update }));
    } catch (error) {
      // out of time or cancelled as a whole: no probe (the next publication settles it by trailers)
      if (deadline.aborted) throw error;
      // the connection died or the bound expired after the pack may have been received: ask the remote
      const failure = classifyFailure({ error, step: 'push' });
      progress.step = 'probe';
      const probed = await session.advertise({ step: 'probe' }).catch(() => null);
      const tip = probed?.heads.get(branch) ?? null;
      if (tip === head) {
        return published(head, true);
      }
      if (probed && tip !== before) {
        lastMove = 'the remote moved after a push whose reply was lost';
        listed = probed;
        continue; // the next attempt finds our writes by their trailers, or rebuilds them
      }
      return failure;
    }
    if (outcome.kind === 'ok') {
      return published(head, settled);
    }
    if (outcome.kind === 'locked') {
      return { kind: 'transient', step: 'lock', cause: `refs/heads/${branch} is locked by another process` };
    }
    // A lost race is recognised by evidence, not by wording: whatever the server said, a branch that
    // is no longer where this push assumed it was has moved, and the next attempt replays on it.
    progress.step = 'probe';
    const probed = await session.advertise({ step: 'probe' }).catch(() => null);
    const tip = probed ? (probed.heads.get(branch) ?? null) : undefined;
    if (tip === head) {
      // the answer was an error, but our head is the branch's: it landed
      return published(head, true);
    }
    if (outcome.kind === 'moved' || (probed && tip !== before)) {
      lastMove = outcome.cause;
      if (guessed) attempt--;
      listed = probed;
      continue;
    }
    if (outcome.kind === 'rejected') return { kind: 'rejected', cause: outcome.cause };
    return refusalResult(outcome, 'push');
  }
  return { kind: 'remoteMoved', attempts: maxAttempts, cause: lastMove };
}

/**
 * What an attempt holds that outlives it until the next or the publication's end: its object store
 * (spilled beside the cache), the cache it read through, and its push opened ahead.
 */
type AttemptHeld = { store?: ObjectStore; readFrom?: string; opening?: PushOpening };

/** Writes past this many operations may take seconds to build: their push is opened once they are. */
const EARLY_PUSH_MAX_OPERATIONS = 1_000;

/**
 * Whether `writes` build in some milliseconds (files put, deleted or edited, a few): their push is
 * opened before they are built. A snapshot, a rewrite or a collection's removal reads and builds
 * as many files as it holds, and a server would hold an idle receive-pack open meanwhile.
 */
function quickToBuild(writes: GitWrite[]): boolean {
  let operations = 0;
  for (const write of writes) {
    for (const operation of write.operations) {
      if (operation.op !== 'put' && operation.op !== 'delete' && operation.op !== 'edit') return false;
      if (++operations > EARLY_PUSH_MAX_OPERATIONS) return false;
    }
  }
  return true;
}

/** A build read a file whose blob the cache does not hold. */
class BlobMissing extends Error {
  constructor(oid: string) {
    super(`blob ${oid} is not in the object cache`);
  }
}
