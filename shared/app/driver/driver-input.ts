import { z } from 'zod';

/** What a branch driver is started with: which branch, and where it lives. */
export const driverInputSchema = z.strictObject({
  branchKey: z.string().min(1),
  /** The configured repository's name. */
  repository: z.string().min(1),
  branch: z.string().min(1),
});
export type DriverInput = z.infer<typeof driverInputSchema>;
