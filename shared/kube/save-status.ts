import { z } from 'zod';

/**
 * The save status as the HTTP contract shows it (`GET .../saves/{id}`) and as it is projected onto a
 * CommitRequest's `.status`. Defined here rather than imported because the branch state machine
 * produces it and must not be a dependency of the Kubernetes adapter's tests; both sides agree on
 * this shape through the contract.
 */
export const SAVE_PHASES = ['WaitingForWindow', 'CollectingWindow', 'WaitingForPush', 'Resolved'] as const;
export const SAVE_OUTCOMES = [
  'Committed',
  'AlreadyPresent',
  'NoWindow',
  'WindowMismatch',
  'Withdrawn',
  'Failed',
] as const;
export const CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled', 'Pushed'] as const;
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export type SavePhase = (typeof SAVE_PHASES)[number];
export type SaveOutcome = (typeof SAVE_OUTCOMES)[number];

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
    branch: z.string().min(1).optional(),
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
