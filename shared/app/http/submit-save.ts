import { z } from 'zod';
import { type BranchCommand, FIELD_CHARS } from '../../branch';
import { parseDuration } from '../../config';
import { checkSaveRules, saveMessageSchema, saveWindowSchema } from '../../resources';
import { commitAuthor } from '../../resources/commit-author';
import type { BranchHandle } from './branch-handle';
import { SAVE_STATE_BYTES } from './state-room';

export const saveIdSchema = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'is required: the id the save is known by (re-sending it is idempotent)'
        : 'must be a string',
  })
  .regex(/^[A-Za-z0-9._:-]{1,256}$/, 'must be 1-256 letters, digits, ".", "_", ":" or "-"');

/** The body of `POST …/saves` (docs/api.md). */
export const saveBodySchema = z
  .strictObject({
    id: saveIdSchema,
    message: saveMessageSchema.optional(),
    author: z
      .strictObject({
        username: z.string().min(1).max(FIELD_CHARS.username),
        uid: z.string().optional(),
        groups: z.array(z.string()).optional(),
      })
      .optional(),
    window: saveWindowSchema.optional(),
    whenNothingToCommit: z.enum(['Resolve', 'CommitEmpty']).optional(),
    commitRequest: z
      .strictObject({
        cluster: z.string().min(1).optional(),
        namespace: z.string().min(1),
        name: z.string().min(1),
      })
      .optional(),
  })
  .superRefine(checkSaveRules);
export type SaveBody = z.infer<typeof saveBodySchema>;

/**
 * Submits a save to its target's branch (idempotent by id) and wakes the driver: the one use case
 * behind the saves route and the admission webhook's CommitRequests.
 */
export async function submitSave(branch: BranchHandle, save: SaveBody, at: string): Promise<void> {
  const { target } = branch;
  await branch.checkAdmission({ bytes: 0, items: 1, stateBytes: SAVE_STATE_BYTES }, at);
  const identity = commitAuthor(save.author, target.repository.committer, target.authors);
  const window = save.window ?? {};
  const command: BranchCommand = {
    type: 'RegisterSave',
    at,
    saveId: save.id,
    target: target.config.name,
    author: save.author ? { ...identity, username: save.author.username } : identity,
    // A save names its author as the requester authenticated (admission) or as the client states it.
    attribution: save.author ? 'admission' : 'configured',
    ...(save.message === undefined ? {} : { message: save.message }),
    ...(window.attach === undefined ? {} : { attach: window.attach }),
    ...durationField('attachTimeoutMs', window.attachTimeout),
    ...durationField('idleTimeoutMs', window.idleTimeout),
    ...durationField('maxDurationMs', window.maxDuration),
    ...(save.whenNothingToCommit === undefined ? {} : { whenNothingToCommit: save.whenNothingToCommit }),
    ...(save.commitRequest === undefined ? {} : { request: { ...save.commitRequest, uid: save.id } }),
  };
  await branch.apply(at, [command]);
  await branch.wake();
}

function durationField<K extends string>(key: K, text: string | undefined): Partial<Record<K, number>> {
  if (text === undefined) return {};
  const parsed = parseDuration(text);
  return parsed.ok ? ({ [key]: parsed.ms } as Partial<Record<K, number>>) : {};
}
