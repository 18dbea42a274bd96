/** A Kubernetes user as audit events and admission requests carry it. */
export interface KubernetesUser {
  username?: string | undefined;
  uid?: string | undefined;
  groups?: readonly string[] | undefined;
  extra?: Readonly<Record<string, readonly string[]>> | undefined;
}

export interface GitIdentity {
  name: string;
  email: string;
}

const DISPLAY_NAME_CLAIM = 'kubescribe.dev/claims/display-name';
const EMAIL_CLAIM = 'kubescribe.dev/claims/email';
const EMAIL = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/;
// A name goes into a commit header between `author ` and `<email>`: these would break it (every one
// of them must go: Git refuses the whole commit for a single one left).
const UNSAFE_IN_NAME = /[<>\p{Cc}]/u;
const UNSAFE_IN_NAME_ALL = /[<>\p{Cc}]/gu;

/**
 * The Git author for a Kubernetes user, as the original operator chose it: the OIDC display name
 * when present and safe, else the username; the OIDC email when valid, else the username when it
 * is an email, else a constructed `<clean>@noreply.cluster.local`. No user → the committer.
 */
export function commitAuthor(user: KubernetesUser | undefined, committer: GitIdentity): GitIdentity {
  const username = user?.username?.trim();
  if (!username) return committer;
  const displayName = user?.extra?.[DISPLAY_NAME_CLAIM]?.[0]?.trim();
  const claimedEmail = user?.extra?.[EMAIL_CLAIM]?.[0]?.trim();
  const name = displayName && !UNSAFE_IN_NAME.test(displayName) ? displayName : cleanName(username);
  return {
    name,
    email: claimedEmail && EMAIL.test(claimedEmail) ? claimedEmail : constructedEmail(username),
  };
}

/** The name without what breaks a commit header, spaces collapsed; never empty. */
function cleanName(username: string): string {
  const clean = username.replace(UNSAFE_IN_NAME_ALL, ' ').replace(/\s+/g, ' ').trim();
  return clean || 'unknown-user';
}

function constructedEmail(username: string): string {
  if (EMAIL.test(username)) return username;
  const clean = username.toLowerCase().replace(/[^a-z0-9.-]/g, '');
  return `${clean || 'unknown-user'}@noreply.cluster.local`;
}
