import { z } from 'zod';

/**
 * A name or a pattern where `*` stands for any run of characters (`system:serviceaccount:flux-system:*`,
 * `argocd-application-controller/*`); every other character matches itself.
 */
const pattern = z.string().min(1).max(256);

/**
 * Changes not to record, by who made them: a change is excluded when any of its identities matches
 * a pattern of the field of the same kind. One rule for every route and for the forwarder's
 * `exclude.fieldManagers` (docs/configuration.md, "Exclusions").
 */
export const exclusionSchema = z.strictObject({
  /** The user who made the request, or the one it impersonated. */
  users: z.array(pattern).max(100).prefault([]),
  groups: z.array(pattern).max(100).prefault([]),
  /** The manager of the object's latest `managedFields` entry (see `latestFieldManager`). */
  fieldManagers: z.array(pattern).max(100).prefault([]),
  /** The client's `User-Agent`, as the apiserver's audit events record it. */
  userAgents: z.array(pattern).max(100).prefault([]),
});

export type Exclusion = z.output<typeof exclusionSchema>;

/** Who made a change, as far as its route tells: each field absent when the route does not carry it. */
export interface ChangeOrigin {
  users: readonly string[];
  groups: readonly string[];
  fieldManager?: string;
  userAgent?: string;
}

/** Why a change is excluded (a sentence naming the rule that matched, for statuses and logs), or undefined. */
export type ExclusionCheck = (origin: ChangeOrigin) => string | undefined;

const FIELDS = [
  { field: 'users', label: 'user', of: (origin: ChangeOrigin) => origin.users },
  { field: 'groups', label: 'group', of: (origin: ChangeOrigin) => origin.groups },
  {
    field: 'fieldManagers',
    label: 'field manager',
    of: (origin: ChangeOrigin) => (origin.fieldManager === undefined ? [] : [origin.fieldManager]),
  },
  {
    field: 'userAgents',
    label: 'user agent',
    of: (origin: ChangeOrigin) => (origin.userAgent === undefined ? [] : [origin.userAgent]),
  },
] as const;

/**
 * The check of `rules`, each named by where it is configured (`target "prod"`, `source "cluster"`):
 * patterns are compiled once, so a check costs a few regular-expression tests per change.
 */
export function exclusionCheck(
  rules: readonly { rule: Exclusion; from: string }[],
): ExclusionCheck | undefined {
  const compiled = rules.flatMap(({ rule, from }) =>
    FIELDS.flatMap(({ field, label, of }) =>
      rule[field].map((text) => ({ matches: matcher(text), text, field, label, of, from })),
    ),
  );
  if (compiled.length === 0) return undefined;
  return (origin) => {
    for (const { matches, text, field, label, of, from } of compiled) {
      // Names the configured pattern, not the identity: statuses and logs carry no author.
      if (of(origin).some(matches)) return `the ${label} matches "${text}" of ${from}'s exclude.${field}`;
    }
    return undefined;
  };
}

/** Whether `value` matches `text`, where `*` stands for any run of characters. */
export function matcher(text: string): (value: string) => boolean {
  if (!text.includes('*')) return (value) => value === text;
  const source = text
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const expression = new RegExp(`^${source}$`, 's');
  return (value) => expression.test(value);
}

/**
 * The manager of an object's latest write, from its `metadata.managedFields`: the newest `time`
 * wins, then the later entry (the apiserver keeps entries in no time order; entries of one
 * timestamp second are ordered as written). Undefined when the object has none (or is not an object).
 */
export function latestFieldManager(object: unknown): string | undefined {
  const metadata = fieldOf(object, 'metadata');
  const entries = fieldOf(metadata, 'managedFields');
  if (!Array.isArray(entries)) return undefined;
  let latest: { manager: unknown; time: string } | undefined;
  for (const entry of entries) {
    const time = fieldOf(entry, 'time');
    const candidate = { manager: fieldOf(entry, 'manager'), time: typeof time === 'string' ? time : '' };
    if (latest === undefined || candidate.time >= latest.time) latest = candidate;
  }
  return typeof latest?.manager === 'string' && latest.manager !== '' ? latest.manager : undefined;
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
