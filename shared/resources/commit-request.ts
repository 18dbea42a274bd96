import { z } from 'zod';
import { parseDuration } from '../config/duration';
import { hasControlCharacterExceptNewline } from './text';

const FIVE_MINUTES_MS = 5 * 60_000;

function boundedDuration() {
  return z.string().superRefine((text, ctx) => {
    const parsed = parseDuration(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
    else if (parsed.ms > FIVE_MINUTES_MS) ctx.addIssue({ code: 'custom', message: 'must be at most 5m' });
  });
}

const durationMs = (text: string | undefined, fallback: number) => {
  if (text === undefined) return fallback;
  const parsed = parseDuration(text);
  return parsed.ok ? parsed.ms : fallback;
};

/** The commit message rules of a save: 1..1024 characters, some non-space, no control characters but newline. */
export const saveMessageSchema = z
  .string()
  .min(1)
  .max(1024)
  .refine((text) => text.trim() !== '', 'must contain a non-whitespace character')
  .refine(
    (text) => !hasControlCharacterExceptNewline(text),
    'must not contain control characters other than newline',
  );

/** How a save picks and holds its commit window (a CommitRequest's `window`, docs/api.md). */
export const saveWindowSchema = z.strictObject({
  attach: z.enum(['CurrentOrNext', 'Next']).optional(),
  attachTimeout: boundedDuration().optional(),
  idleTimeout: boundedDuration().optional(),
  maxDuration: boundedDuration().optional(),
});

/**
 * The cross-field rules of a save, the same for a CommitRequest's spec and the saves route's body:
 * `Next` needs attachTimeout > 0, idleTimeout ≤ maxDuration, and `CommitEmpty` needs a message.
 */
export function checkSaveRules(
  save: {
    message?: string | undefined;
    window?: z.output<typeof saveWindowSchema> | undefined;
    whenNothingToCommit?: 'Resolve' | 'CommitEmpty' | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const window = save.window ?? {};
  if (window.attach === 'Next' && durationMs(window.attachTimeout, 2000) === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['window', 'attachTimeout'],
      message: 'must be more than 0s when attach is Next',
    });
  }
  if (
    window.idleTimeout !== undefined &&
    durationMs(window.idleTimeout, 0) > durationMs(window.maxDuration, 2000)
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['window', 'idleTimeout'],
      message: 'must not be longer than maxDuration',
    });
  }
  if (save.whenNothingToCommit === 'CommitEmpty' && save.message === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['message'],
      message: 'is required when whenNothingToCommit is CommitEmpty',
    });
  }
}

/**
 * The spec of a `kubescribe.dev/v1alpha1` CommitRequest: the target to save, an optional message, the
 * window policy and what to do when nothing is pending. Bounds and cross-field rules are those of the
 * saves route: each duration ≤ 5m, idleTimeout ≤ maxDuration, `Next` needs attachTimeout > 0,
 * `CommitEmpty` needs a message.
 */
export const commitRequestSpecSchema = z
  .strictObject({
    target: z
      .string()
      .max(63)
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must name a kubescribe target'),
    message: saveMessageSchema.optional(),
    window: saveWindowSchema.optional(),
    whenNothingToCommit: z.enum(['Resolve', 'CommitEmpty']).optional(),
  })
  .superRefine(checkSaveRules);

export type CommitRequestSpec = z.output<typeof commitRequestSpecSchema>;
