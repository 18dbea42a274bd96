import { z } from 'zod';

/**
 * What one stored snapshot part holds: the snapshot's files (sanitized YAML at canonical paths) and
 * the paths of objects it reports as being deleted. The HTTP layer writes it; the publish activity reads it.
 */
export const snapshotPartPayloadSchema = z.strictObject({
  files: z.array(z.strictObject({ path: z.string().min(1), content: z.string() })),
  deletes: z.array(z.string().min(1)),
});
export type SnapshotPartPayload = z.infer<typeof snapshotPartPayloadSchema>;
