/**
 * The longest value, in characters, of each field a branch holds. The branch's command schemas are
 * built from these, and the HTTP layer checks what it answers with the same ones, so nothing it
 * acknowledges is refused by the branch afterwards (docs/api.md, "Accepted means recorded").
 */
export const FIELD_CHARS = {
  /**
   * A commit author's username: the longest ServiceAccount username,
   * `system:serviceaccount:<namespace, 63>:<name, 253>`, is 339 characters.
   */
  username: 512,
  /** A commit author's name: the username cleaned, or the OIDC display name. */
  authorName: 512,
  /** A commit author's e-mail: the OIDC claim, or one constructed from the username (`…@noreply.cluster.local`). */
  authorEmail: 1024,
  /** An object's `resourceVersion`: an etcd revision is an int64, at most 19 digits. */
  resourceVersion: 64,
  /** An object's `metadata.uid`: a UUID the apiserver assigns (36 characters), room for any other. */
  objectUid: 128,
  /** A snapshot's revision (the list's `resourceVersion`, or the sender's label). */
  snapshotRevision: 64,
  /** A change's path in the repository. */
  changePath: 1024,
  /** What a refused change was about, and why it was refused, as the target's status keeps them. */
  refusal: 300,
} as const;

/** `text` cut to `chars` characters, the cut marked with "…". */
export function cutTo(chars: number): (text: string) => string {
  return (text) => (text.length <= chars ? text : `${text.slice(0, chars - 1)}…`);
}
