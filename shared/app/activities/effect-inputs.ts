import { z } from 'zod';
import type { BranchEffect } from '../../branch';
import { driverInputSchema } from '../driver/driver-input';

/** The `publish` activity's input: the driver's branch and the attempt to publish (its writes are in the entity). */
export const publishInputSchema = driverInputSchema.extend({ attempt: z.string().min(1) });
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
