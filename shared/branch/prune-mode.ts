import { z } from 'zod';

/** How a target treats deletions: `Never` keeps files, `OnEvent` mirrors explicit deletes, `Always` also sweeps. */
export const pruneModeSchema = z.enum(['Never', 'OnEvent', 'Always']);
export type PruneMode = z.infer<typeof pruneModeSchema>;
