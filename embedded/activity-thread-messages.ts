/** What the host and its activity threads say to each other (structured clones, checked on arrival). */
import { z } from 'zod';

export const activityThreadDataSchema = z.object({ appEntry: z.string().min(1) });

export const activityThreadRequestSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The activity's input as the trigger binding carries it: JSON text. */
  input: z.string(),
  clientInputs: z.array(z.object({ name: z.string(), data: z.object({ string: z.string() }) })),
});
export type ActivityThreadRequest = z.infer<typeof activityThreadRequestSchema>;

export const activityThreadReplySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ready') }),
  z.object({ kind: z.literal('fatal'), message: z.string(), stack: z.string() }),
  z.object({ kind: z.literal('result'), id: z.number().int(), value: z.unknown() }),
  z.object({ kind: z.literal('error'), id: z.number().int(), message: z.string(), stack: z.string() }),
  z.object({
    kind: z.literal('log'),
    fn: z.string(),
    level: z.string(),
    category: z.string(),
    message: z.string(),
  }),
]);
export type ActivityThreadReply = z.infer<typeof activityThreadReplySchema>;
