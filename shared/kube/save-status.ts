import { z } from 'zod';
import { SAVE_OUTCOMES, SAVE_PHASES, type SaveOutcome, type SavePhase } from '../branch/save-vocabulary';

/**
 * The save status as the HTTP contract shows it (`GET .../saves/{id}`) and as it is projected onto a
 * CommitRequest's `.status`. Its phases and outcomes come from the branch's leaf vocabulary, not the
 * state machine, so the Kubernetes adapter's tests do not depend on the machine that produces them.
 */
export { SAVE_PHASES, type SaveOutcome, type SavePhase };
export const CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled', 'Pushed'] as const;
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export const saveConditionSchema = z.strictObject({
  type: z.enum(CONDITION_TYPES),
  status: z.enum(CONDITION_STATUSES),
  reason: z.string().min(1).max(1024),
  message: z.string().max(32768),
  lastTransitionTime: z.iso.datetime({ offset: true }),
});

export const saveStatusSchema = z
  .strictObject({
    phase: z.enum(SAVE_PHASES),
    outcome: z.enum(SAVE_OUTCOMES).optional(),
    commit: z
      .string()
      .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)
      .optional(),
    /** The branch `commit` is on: for a target that proposes, the base its pull request merged into. */
    branch: z.string().min(1).optional(),
    /** publish: propose: the pull request that proposed the save, and the branch it proposed from. */
    pullRequest: z
      .strictObject({
        number: z.number().int().nonnegative(),
        url: z.string().min(1).max(2048),
        branch: z.string().min(1),
      })
      .optional(),
    message: z.string().optional(),
    conditions: z.array(saveConditionSchema),
  })
  .refine((status) => (status.phase === 'Resolved') === (status.outcome !== undefined), {
    message: 'an outcome is present exactly when the phase is Resolved',
    path: ['outcome'],
  })
  .refine((status) => new Set(status.conditions.map((c) => c.type)).size === status.conditions.length, {
    message: 'each condition type appears at most once',
    path: ['conditions'],
  });

export type SaveCondition = z.infer<typeof saveConditionSchema>;
export type SaveStatus = z.infer<typeof saveStatusSchema>;

/** Which CommitRequest a projection is for: a same-named object with another `uid` is another request. */
export const commitRequestRefSchema = z.strictObject({
  namespace: z.string().min(1).max(63),
  name: z.string().min(1).max(253),
  uid: z.string().min(1),
});

export type CommitRequestRef = z.infer<typeof commitRequestRefSchema>;
