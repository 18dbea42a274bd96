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

/**
 * One rule of `authors.rules` (docs/configuration.md, "Commit authors"): it matches a user by exact
 * username, by a pattern over the username, or by a group, and gives the Git name, e-mail or both.
 * A pattern rule's `name` and `email` may use its captures (`$1`, `$<user>`).
 */
export type AuthorRule = ({ username: string } | { usernamePattern: string } | { group: string }) & {
  name?: string | undefined;
  email?: string | undefined;
};

/** `authors` of the configuration: the rules, first match wins, and the domain of constructed e-mails. */
export interface AuthorMapping {
  emailDomain: string;
  rules: readonly AuthorRule[];
}

/** Without an `authors` block: no rules, constructed e-mails at `noreply.cluster.local`. */
export const DEFAULT_AUTHOR_MAPPING: AuthorMapping = { emailDomain: 'noreply.cluster.local', rules: [] };

const DISPLAY_NAME_CLAIM = 'kubescribe.dev/claims/display-name';
const EMAIL_CLAIM = 'kubescribe.dev/claims/email';
const EMAIL = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/;
// A name goes into a commit header between `author ` and `<email>`: these would break it (every one
// of them must go: Git refuses the whole commit for a single one left).
const UNSAFE_IN_NAME = /[<>\p{Cc}]/u;
const UNSAFE_IN_NAME_ALL = /[<>\p{Cc}]/gu;
// How the apiserver names a ServiceAccount's requests (k8s.io/apiserver/pkg/authentication/serviceaccount).
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;
/** The namespaces well-known controllers run in, by the product a reader recognises. */
const CONTROLLER_NAMESPACES: Readonly<Record<string, string>> = {
  'flux-system': 'Flux',
  argocd: 'Argo CD',
  'kube-system': 'Kubernetes',
  'cert-manager': 'cert-manager',
  'gatekeeper-system': 'Gatekeeper',
  kyverno: 'Kyverno',
};

/**
 * The Git author of a Kubernetes user; a pure function of the user, the configured mapping and the
 * committer. No username → the committer. Otherwise, each of name and e-mail from the first
 * `authors.rules` entry that matches and gives it, else the OIDC claims
 * (`kubescribe.dev/claims/display-name`, `…/email`) when safe, else the default form: a
 * ServiceAccount is `Flux (flux-system/kustomize-controller)` (the product of a well-known
 * namespace, else `ServiceAccount`), anyone else their username; the e-mail is the username when
 * it is one, else the username's letters, digits, `.`, `_` and `-` (other runs become `-`) at
 * `emailDomain`.
 */
export function commitAuthor(
  user: KubernetesUser | undefined,
  committer: GitIdentity,
  mapping: AuthorMapping = DEFAULT_AUTHOR_MAPPING,
): GitIdentity {
  const username = user?.username?.trim();
  if (!username) return committer;
  const mapped = mappedIdentity(username, user?.groups ?? [], mapping.rules);
  const displayName = user?.extra?.[DISPLAY_NAME_CLAIM]?.[0]?.trim();
  const claimedEmail = user?.extra?.[EMAIL_CLAIM]?.[0]?.trim();
  const name = safeName(mapped.name) ?? safeName(displayName) ?? cleanName(defaultName(username));
  const email = validEmail(mapped.email) ?? validEmail(claimedEmail) ?? constructedEmail(username, mapping);
  return { name, email };
}

/** The name and e-mail the first matching rules give (each from the first rule that has it). */
function mappedIdentity(
  username: string,
  groups: readonly string[],
  rules: readonly AuthorRule[],
): { name?: string; email?: string } {
  let name: string | undefined;
  let email: string | undefined;
  for (const rule of rules) {
    const fill = filler(rule, username, groups);
    if (!fill) continue;
    if (name === undefined && rule.name !== undefined) name = fill(rule.name);
    if (email === undefined && rule.email !== undefined) email = fill(rule.email);
    if (name !== undefined && email !== undefined) break;
  }
  return { ...(name === undefined ? {} : { name }), ...(email === undefined ? {} : { email }) };
}

/** How a matching rule fills its templates; undefined when it does not match. */
function filler(
  rule: AuthorRule,
  username: string,
  groups: readonly string[],
): ((template: string) => string) | undefined {
  if ('username' in rule) return rule.username === username ? (template) => template : undefined;
  if ('group' in rule) return groups.includes(rule.group) ? (template) => template : undefined;
  const match = anchored(rule.usernamePattern).exec(username);
  if (!match) return undefined;
  // String#replace's substitutions ($1, $<name>, $$) over the whole username, which the pattern spans
  return (template) => username.replace(anchored(rule.usernamePattern), template);
}

const compiled = new Map<string, RegExp>();
/**
 * A `usernamePattern` as it is matched: over the whole username (`^(?:…)$`, so `admin` never
 * matches `not-admin`), Unicode-aware. Throws a SyntaxError for a pattern that is not one.
 */
export function anchored(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = new RegExp(`^(?:${pattern})$`, 'u');
    compiled.set(pattern, regex);
  }
  return regex;
}

/** The default name: a ServiceAccount as its product (or `ServiceAccount`) and `namespace/name`. */
function defaultName(username: string): string {
  const account = SERVICE_ACCOUNT.exec(username);
  if (!account) return username;
  const [, namespace, name] = account;
  return `${CONTROLLER_NAMESPACES[namespace!] ?? 'ServiceAccount'} (${namespace}/${name})`;
}

function safeName(name: string | undefined): string | undefined {
  const trimmed = name?.trim();
  return trimmed && !UNSAFE_IN_NAME.test(trimmed) ? trimmed : undefined;
}

/** An address a commit author may have (`jane@example.com`). */
export function isEmailAddress(text: string): boolean {
  return EMAIL.test(text);
}

function validEmail(email: string | undefined): string | undefined {
  const trimmed = email?.trim();
  return trimmed && isEmailAddress(trimmed) ? trimmed : undefined;
}

/** The name without what breaks a commit header, spaces collapsed; never empty. */
function cleanName(username: string): string {
  const clean = username.replace(UNSAFE_IN_NAME_ALL, ' ').replace(/\s+/g, ' ').trim();
  return clean || 'unknown-user';
}

function constructedEmail(username: string, mapping: AuthorMapping): string {
  if (EMAIL.test(username)) return username;
  const local = username
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.{2,}/g, '.');
  return `${local || 'unknown-user'}@${mapping.emailDomain}`;
}
