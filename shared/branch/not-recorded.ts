import { type CommandOf, NOT_RECORDED_EXAMPLES } from './commands';
import { type Decision, record } from './context';
import { cutTo, FIELD_CHARS } from './field-limits';
import type { Condition } from './status';

/** One event not recorded, as a target's status shows it: what it was about, why, and when. */
export interface NotRecordedExample {
  /** A stable kebab-case code: `excluded`, `verb-not-recorded`, `value-out-of-bounds`, `write-refused`… */
  reason: string;
  /** The object, e.g. `apps/v1 deployments prod/web`, or `a write` for a write set aside. */
  object: string;
  message: string;
  at: string;
}

/**
 * What a target did not record: counts by reason since the branch began counting, the latest
 * `NOT_RECORDED_EXAMPLES`, and the latest audit write event that carried no object, until one of
 * that resource arrives with its object. Bounded whatever the traffic: reasons are the code's
 * vocabulary (at most `REASONS_KEPT`, the rest counted as `other`).
 */
export interface NotRecordedTally {
  counts: Record<string, number>;
  recent: NotRecordedExample[];
  auditObjectsMissing?: { level: string; resource: string; since: string; at: string };
}

const REASONS_KEPT = 40;

/** Decides a `CountNotRecorded`: the branch records what the request's answer reported. */
export function countNotRecorded(decision: Decision, command: CommandOf<'CountNotRecorded'>): void {
  const { type: _, at: __, ...counted } = command;
  record(decision, { type: 'NotRecordedCounted', ...counted });
}

/** The tally with `counts` and `examples` added, and the audit objects' news, if any. */
export function withNotRecorded(
  known: NotRecordedTally | undefined,
  {
    counts,
    examples,
    audit,
    at,
  }: {
    counts: Readonly<Record<string, number>>;
    examples: readonly Omit<NotRecordedExample, 'at'>[];
    audit?: CommandOf<'CountNotRecorded'>['audit'];
    at: string;
  },
): NotRecordedTally {
  const next: Record<string, number> = { ...known?.counts };
  for (const [reason, count] of Object.entries(counts)) {
    const key = reason in next || Object.keys(next).length < REASONS_KEPT ? reason : 'other';
    next[key] = (next[key] ?? 0) + count;
  }
  const tally: NotRecordedTally = {
    counts: next,
    recent: [
      ...(known?.recent ?? []),
      ...examples.map((example) => ({
        ...example,
        message: cutTo(FIELD_CHARS.refusal)(example.message),
        at,
      })),
    ].slice(-NOT_RECORDED_EXAMPLES),
  };
  const missing = auditObjectsMissing(known?.auditObjectsMissing, audit, at);
  return missing ? { ...tally, auditObjectsMissing: missing } : tally;
}

function auditObjectsMissing(
  known: NotRecordedTally['auditObjectsMissing'],
  audit: CommandOf<'CountNotRecorded'>['audit'],
  at: string,
): NotRecordedTally['auditObjectsMissing'] {
  if (audit?.objectless) return { ...audit.objectless, since: known?.since ?? at, at };
  // Objects of that resource arrive: the policy was fixed (or covers it now).
  if (known && audit?.withObjects.includes(known.resource)) return undefined;
  return known;
}

/** A target's events not recorded, for its GET and the dashboard. */
export interface NotRecordedView {
  count: number;
  byReason: Record<string, number>;
  recent: NotRecordedExample[];
  /** `AuditObjectsMissing` True while the target's audit events carry no objects, else absent. */
  condition?: Omit<Condition, 'type'> & { type: 'AuditObjectsMissing' };
}

export function notRecordedView(tally: NotRecordedTally | undefined): NotRecordedView {
  const byReason = { ...tally?.counts };
  const view: NotRecordedView = {
    count: Object.values(byReason).reduce((sum, count) => sum + count, 0),
    byReason,
    recent: [...(tally?.recent ?? [])],
  };
  const missing = tally?.auditObjectsMissing;
  if (!missing) return view;
  return {
    ...view,
    condition: {
      type: 'AuditObjectsMissing',
      status: 'True',
      reason: `AuditLevel${missing.level}`,
      message: `Audit events for ${missing.resource} arrive at policy level ${missing.level} and carry no object, so none is recorded: set level RequestResponse for the resources to record in the audit policy.`,
      lastTransitionTime: missing.since,
    },
  };
}
