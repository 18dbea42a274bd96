/**
 * The log's view of occurrences: which ones are a line, at which level, and the sentence that says
 * what happened. Occurrences that only feed metrics (timings, gauges) are no line at all.
 */
import type { Occurrence } from './occurrences';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** One line: its level, its event (the occurrence's name), a sentence and the occurrence's fields. */
export interface LogLine {
  level: LogLevel;
  event: Occurrence['type'];
  message: string;
  fields: Record<string, unknown>;
}

/** `LOG_LEVEL` (debug, info, warn, error; default info); anything else is refused with the choices. */
export function logLevelFrom(env: Record<string, string | undefined>): LogLevel {
  const value = env.LOG_LEVEL?.trim().toLowerCase();
  if (value === undefined || value === '') return 'info';
  if (value === 'warning') return 'warn';
  if ((LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new Error(`LOG_LEVEL "${env.LOG_LEVEL}" is not one of ${LEVELS.join(', ')}`);
}

/** Whether a line at `level` is written when the log is at `min`. */
export function atLeast(level: LogLevel, min: LogLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

/**
 * The line an occurrence makes, or undefined when it only feeds metrics. `nameOf` names a branch key
 * in words (`main of state`) where the configuration knows it.
 */
export function logLineOf(
  occurrence: Occurrence,
  nameOf: (branchKey: string) => string | undefined = () => undefined,
): LogLine | undefined {
  const { type: event, ...own } = occurrence;
  const named = 'branch' in occurrence ? nameOf(occurrence.branch) : undefined;
  const fields: Record<string, unknown> = named ? { ...own, branchName: named } : own;
  const b = (key: string) => named ?? key;
  const line = (level: LogLevel, message: string, shown: Record<string, unknown> = fields): LogLine => ({
    level,
    event,
    message,
    fields: shown,
  });
  switch (occurrence.type) {
    case 'PublicationLanded': {
      const { latenciesMs: _each, ...rest } = fields;
      return line(
        'info',
        `published ${plural(occurrence.changes, 'change')} of ${occurrence.targets.join(', ') || 'no target'} on ${b(occurrence.branch)} as ${occurrence.commit.slice(0, 12)}`,
        rest,
      );
    }
    case 'PublicationAttemptFailed':
      return line(
        'warn',
        `publication of ${b(occurrence.branch)} failed (${occurrence.kind}): ${occurrence.reason}; next attempt at ${occurrence.nextRetryAt}`,
      );
    case 'ChangesNotRecorded':
      return line(
        'warn',
        `${plural(occurrence.changes, 'change')} of ${occurrence.target} not recorded (${occurrence.reason}): ${occurrence.message}`,
      );
    case 'WriteSetAside':
      return line(
        'error',
        `a write of ${occurrence.target ?? occurrence.branch} can never be published and is set aside: ${occurrence.reason}`,
      );
    case 'SaveResolved':
      return line(
        'info',
        `save ${occurrence.saveId} on ${b(occurrence.branch)} resolved ${occurrence.outcome} (${occurrence.reason})${occurrence.commit ? ` in ${occurrence.commit.slice(0, 12)}` : ''}`,
      );
    case 'RequestRefused':
      return line(
        occurrence.status === 429 ? 'warn' : 'info',
        `${occurrence.route} answered ${occurrence.status} ${occurrence.reason}: ${occurrence.message}`,
      );
    case 'IntakePaused':
      return line(
        'warn',
        `intake of ${b(occurrence.branch)} paused: ${occurrence.usedBytes} of ${occurrence.limitBytes} bytes wait for publication; new changes get 429`,
      );
    case 'IntakeResumed':
      return line('info', `intake of ${b(occurrence.branch)} resumed (${occurrence.reason})`);
    case 'WindowOpened':
      return line('debug', `a commit window opened for ${occurrence.target} on ${b(occurrence.branch)}`);
    case 'WindowClosed':
      return line(
        'debug',
        `the commit window of ${occurrence.target ?? occurrence.branch} closed (${occurrence.reason}) with ${plural(occurrence.changes, 'change')}`,
      );
    case 'ChangesReceived':
      return line(
        'debug',
        `${occurrence.target} took ${plural(occurrence.accepted, 'change')} and ignored ${plural(
          Object.values(occurrence.ignored).reduce((sum, n) => sum + n, 0),
          'event',
        )} (${occurrence.intake})`,
      );
    case 'EventsNotRecorded':
      return line(
        occurrence.reason === 'excluded' ? 'info' : 'warn',
        `${occurrence.target} did not record ${plural(occurrence.events, 'event')} from source ${occurrence.source} (${occurrence.reason}), e.g. ${occurrence.message}`,
      );
    case 'SourceWentQuiet':
      return line(
        'warn',
        `source ${occurrence.source} has sent nothing since ${occurrence.lastHeard ?? 'the host started'}: its targets show SourceQuiet`,
      );
    case 'SourceHeardAgain':
      return line('info', `source ${occurrence.source} is sending again`);
    case 'StatusProjected':
    case 'PullRequestCalled':
    case 'BranchMeasured':
    case 'GitCallTimed':
    case 'ActivityRan':
    case 'EntityOperationRan':
      return undefined;
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
