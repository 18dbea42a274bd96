import { z } from 'zod';
import type { ChangeAuthor } from './change';

/** Kubernetes `UserInfo` as audit events and AdmissionReviews carry it (its known fields). */
export const userInfoSchema = z.object({
  username: z.string().optional(),
  uid: z.string().optional(),
  groups: z.array(z.string()).nullish(),
  extra: z.record(z.string(), z.array(z.string()).nullish()).nullish(),
});

export type UserInfo = z.output<typeof userInfoSchema>;

/** The change author for a Kubernetes user; undefined (the committer) when it has no username. */
export function authorFromUserInfo(user: UserInfo | null | undefined): ChangeAuthor | undefined {
  if (!user?.username) return undefined;
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups && user.groups.length > 0 ? { groups: [...user.groups] } : {}),
  };
}
