import { z } from 'zod';
import type { BranchEffect, PendingWrite } from '../branch';
import { driverInputSchema } from './driver-input';

// The effects cross the durable boundary as JSON the branch entity produced; checked for shape here.
const pendingWriteSchema = z.custom<PendingWrite>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PendingWrite).id === 'string' &&
    typeof (value as PendingWrite).message === 'string' &&
    typeof (value as PendingWrite).targetPath === 'string',
  'must be a pending write of the branch',
);

/** The `publish` activity's input: the driver's branch plus the publish effect and snapshot parts. */
export const publishInputSchema = driverInputSchema.extend({
  effect: z.strictObject({
    type: z.literal('publish'),
    attempt: z.string().min(1),
    base: z.string().optional(),
    parentBranch: z.string().nullable(),
    writes: z.array(pendingWriteSchema).min(1),
  }),
  snapshotParts: z.record(z.string(), z.array(z.string())),
});
export type PublishInput = z.infer<typeof publishInputSchema>;

/** The `read-remote` activity's input: which ref to read (null: the remote's default branch). */
export const readRemoteInputSchema = driverInputSchema.extend({ ref: z.string().min(1).nullable() });
export type ReadRemoteInput = z.infer<typeof readRemoteInputSchema>;

/** The `project-status` activity's input. */
export const projectInputSchema = driverInputSchema.extend({
  effect: z.custom<Extract<BranchEffect, { type: 'project' }>>(
    (value) =>
      typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'project',
    'must be a project effect of the branch',
  ),
});
export type ProjectInput = z.infer<typeof projectInputSchema>;
