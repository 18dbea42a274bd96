import { z } from 'zod';
import type { PruneMode } from './prune-mode';

const PRUNE_STRICTNESS: Record<PruneMode, number> = { Never: 0, OnEvent: 1, Always: 2 };

/** The stricter (less deleting) of two prune modes: prune can only tighten on retained work. */
export function stricterPrune(a: PruneMode, b: PruneMode): PruneMode {
  return PRUNE_STRICTNESS[a] <= PRUNE_STRICTNESS[b] ? a : b;
}

// Durations are finite non-negative integers of milliseconds: NaN and Infinity would slip past plain
// comparisons and turn a deadline into "never" or "always".
const durationMs = z.number().int().nonnegative().finite();
const positiveBytes = z.number().int().positive().finite();

/** A commit window's timing, snapshotted when the window opens. */
export const windowTimingSchema = z.strictObject({ idleTimeoutMs: durationMs, maxDurationMs: durationMs });
export type WindowTiming = z.infer<typeof windowTimingSchema>;

/** Branch-wide limits; every default is upstream's (see docs/branch-state-machine.md). */
export const branchLimitsSchema = z.strictObject({
  /** Outage budget and window byte cap (8 MiB). */
  bufferBytes: positiveBytes,
  /** Charge per accepted item on top of its payload (1 KiB). */
  itemOverheadBytes: z.number().int().nonnegative().finite(),
  retryInitialMs: durationMs.min(1),
  retryMaxMs: durationMs.min(1),
  /** Minimum spacing between successful publications (10 s). */
  pushCooldownMs: durationMs,
  /** A save's attach timeout when it names none (2 s). */
  attachTimeoutMs: durationMs,
  /** A save's maximum window duration when it names none (2 s); saves have no idle timeout by default. */
  saveMaxDurationMs: durationMs,
  /** How long a resolved save's receipt is kept after it is projected (15 min). */
  receiptRetentionMs: durationMs,
  /** Window timing of a target that configures none (idle 5 s, maximum 1 min). */
  window: windowTimingSchema,
  /**
   * Changes (paths) one window holds before it closes (2,000): zero-byte deletes never reach the
   * byte cap, and a window's write must fit one durable message. Absent in states stored before.
   */
  windowChanges: z.number().int().positive().finite().optional(),
  /** How often an open pull request is read (publish: propose; 30 s). Absent in states stored before. */
  pullRequestPollMs: durationMs.min(1000).optional(),
});
export type BranchLimits = z.infer<typeof branchLimitsSchema>;

/** The defaults of every branch limit. */
export const DEFAULT_LIMITS: BranchLimits = {
  bufferBytes: 8 * 1024 * 1024,
  itemOverheadBytes: 1024,
  retryInitialMs: 10_000,
  retryMaxMs: 5 * 60_000,
  pushCooldownMs: 10_000,
  attachTimeoutMs: 2_000,
  saveMaxDurationMs: 2_000,
  receiptRetentionMs: 15 * 60_000,
  window: { idleTimeoutMs: 5_000, maxDurationMs: 60_000 },
  windowChanges: 2_000,
};

/** How many changes a window holds before it closes (`item-limit`). */
export function windowChangeLimit(limits: BranchLimits): number {
  return limits.windowChanges ?? DEFAULT_LIMITS.windowChanges ?? 2_000;
}

/** A target's settings: where it writes in the repository, its prune mode and window timing. */
export interface TargetSettings {
  path: string;
  prune: PruneMode;
  window: WindowTiming;
  /**
   * How long a change with no author (the forwarder's) is held for an audit record of the same
   * object to claim it; absent: not held (a target no Event Hubs feed records).
   */
  attributionWaitMs?: number;
}

/**
 * The longest attribution wait: a held change is in no window, so the wait is how late it can be
 * published, and the recorded objects' memory (`attribution.ts`) must outlast it.
 */
export const MAX_ATTRIBUTION_WAIT_MS = 10 * 60_000;

/** The settings of a target that was never configured: the repository root, `OnEvent`, the branch's window. */
export function defaultTargetSettings(limits: BranchLimits): TargetSettings {
  return { path: '.', prune: 'OnEvent', window: limits.window };
}
