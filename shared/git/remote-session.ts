import type { ObjectStore } from './object-store';
import type { ReceivePackOutcome } from './send-receive-pack';
import type { GitStep } from './types';

/** The branches a remote advertises, and its default branch (the target of its HEAD). */
export type Advertisement = {
  heads: ReadonlyMap<string, string>;
  defaultBranch: string | null;
  /** No ref at all: the next commit is a root commit. */
  empty: boolean;
};

export type PushOutcome = ReceivePackOutcome | { kind: 'locked' };

/**
 * What `publish` needs from a remote, whatever its transport. Every method is bounded; network
 * failures are thrown (GitStepTimedOut, isomorphic-git errors), server answers are data.
 */
export type RemoteSession = {
  advertise(args: { step: GitStep }): Promise<Advertisement>;
  /**
   * Makes `tip` (and its recent history) readable locally; returns the tip actually obtained and the
   * isomorphic-git cache that read it, its pack indexes parsed: reading on with it parses none again.
   */
  obtain(args: { branch: string; tip: string }): Promise<{ gitdir: string; tip: string; cache: object }>;
  /**
   * Makes every file of `tip` readable too, when a build found one missing: a cache written by a
   * release that kept only the commits and trees it pushed is fetched again, cold.
   */
  obtainFiles(args: { branch: string; tip: string }): Promise<void>;
  /** The branch tip this machine last saw (fetched or pushed), if it has one: a guess worth a push. */
  knownTip(args: { branch: string }): Promise<string | null>;
  /** The folder objects are read from (the cache, or the local repository itself). */
  gitdir(): Promise<string>;
  push(args: PushArgs): Promise<PushOutcome>;
  /**
   * Opens the push of `branch` before its commits are built, where the transport can (smart HTTP:
   * the POST's headers go now, the server starts receive-pack while the commits are built, and a
   * new connection's handshakes are made meanwhile). Its `push` sends what was built on it; `cancel`
   * cuts it off when the publication ends without that push (nothing is applied), and changes
   * nothing once `push` was called.
   */
  openPush?(args: { branch: string }): PushOpening;
};

export type PushArgs = {
  branch: string;
  oldOid: string | null;
  newOid: string;
  store: ObjectStore;
  /** `newOid`'s commit object, when it was built in this process: the next publication reads it first. */
  headCommit?: Buffer;
};

export type PushOpening = {
  push(args: Omit<PushArgs, 'branch'>): Promise<PushOutcome>;
  cancel(): void;
};
