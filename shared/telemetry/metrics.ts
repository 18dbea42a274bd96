/**
 * The metrics kubescribe keeps, one table of names and labels for both exporters (Prometheus on the
 * embedded host, OpenTelemetry to Application Insights on the Functions host), and how each
 * occurrence moves them. Labels are bounded by the configuration: target names, branch keys,
 * reasons and outcomes from closed vocabularies, never paths, authors or object names.
 */
import type { Occurrence } from './occurrences';

type Kind = 'counter' | 'gauge' | 'histogram';

/** One metric: its name, what it says, its kind and its labels. */
export interface MetricDefinition {
  name: string;
  help: string;
  kind: Kind;
  labels: readonly string[];
  /** Histogram buckets, in the metric's unit (seconds). */
  buckets?: readonly number[];
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LATENCY = [1, 2.5, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];

function define<const N extends string>(
  name: N,
  kind: Kind,
  labels: readonly string[],
  help: string,
  buckets?: readonly number[],
): MetricDefinition & { name: N } {
  return { name, kind, labels, help, ...(buckets ? { buckets } : {}) };
}

/** Every metric, by name (docs/observability.md lists them). */
export const METRICS = [
  define(
    'kubescribe_events_received_total',
    'counter',
    ['target', 'intake'],
    'Events (or snapshot objects) in payloads read, accepted or ignored.',
  ),
  define(
    'kubescribe_events_accepted_total',
    'counter',
    ['target', 'intake'],
    'Changes admitted to a branch.',
  ),
  define(
    'kubescribe_events_ignored_total',
    'counter',
    ['target', 'reason'],
    'Events read and ignored, by reason.',
  ),
  define(
    'kubescribe_changes_not_recorded_total',
    'counter',
    ['target', 'reason'],
    'Changes in an accepted request that the branch cannot hold, refused on arrival, by reason.',
  ),
  define(
    'kubescribe_requests_refused_total',
    'counter',
    ['target', 'status', 'reason'],
    'Requests answered 4xx, by status code and error code (target empty when it names none configured).',
  ),
  define('kubescribe_pending_writes', 'gauge', ['branch'], 'Writes decided and not yet published.'),
  define('kubescribe_pending_bytes', 'gauge', ['branch'], 'Payload bytes the pending writes hold.'),
  define(
    'kubescribe_held_changes',
    'gauge',
    ['branch'],
    'Changes held for their audit record (a combined feed), not yet in a window.',
  ),
  define('kubescribe_held_bytes', 'gauge', ['branch'], 'Payload bytes the held changes hold.'),
  define(
    'kubescribe_intake_paused',
    'gauge',
    ['branch'],
    '1 while the branch answers new changes 429 (its budget is full).',
  ),
  define(
    'kubescribe_credentials_refused',
    'gauge',
    ['branch'],
    '1 while the branch waits on credentials the remote refused (HTTP 401/403): Stalled until they are replaced.',
  ),
  define('kubescribe_intake_pauses_total', 'counter', ['branch'], 'Times the branch paused its intake.'),
  define('kubescribe_window_open', 'gauge', ['branch'], '1 while the branch has an open commit window.'),
  define('kubescribe_windows_opened_total', 'counter', ['branch', 'target'], 'Commit windows opened.'),
  define(
    'kubescribe_windows_closed_total',
    'counter',
    ['branch', 'reason'],
    'Commit windows closed, by reason.',
  ),
  define(
    'kubescribe_publications_total',
    'counter',
    ['branch', 'outcome'],
    'Publication attempts by outcome: landed, failed (retried), set-aside (a write refused for good).',
  ),
  define(
    'kubescribe_publication_retries_total',
    'counter',
    ['branch', 'kind'],
    'Retries scheduled after a failed attempt, by kind of failure.',
  ),
  define('kubescribe_changes_published_total', 'counter', ['branch'], 'Changes that landed on the remote.'),
  define(
    'kubescribe_change_to_pushed_seconds',
    'histogram',
    ['branch'],
    'From a change received to its commit on the remote.',
    LATENCY,
  ),
  define(
    'kubescribe_git_call_duration_seconds',
    'histogram',
    ['call', 'outcome'],
    'Git calls to a remote, by call.',
    SECONDS,
  ),
  define('kubescribe_saves_resolved_total', 'counter', ['outcome'], 'Saves resolved, by outcome.'),
  define(
    'kubescribe_projections_total',
    'counter',
    ['outcome'],
    'Save outcomes written to their CommitRequest: settled, or retry.',
  ),
  define(
    'kubescribe_pull_request_calls_total',
    'counter',
    ['outcome'],
    "Calls to a proposing target's pull-request host, by the pull request's state or the failure's kind.",
  ),
  define(
    'kubescribe_activity_duration_seconds',
    'histogram',
    ['activity', 'outcome'],
    'Activity invocations.',
    SECONDS,
  ),
  define(
    'kubescribe_entity_operation_duration_seconds',
    'histogram',
    ['operation', 'outcome'],
    'Branch entity operations.',
    SECONDS,
  ),
  define(
    'kubescribe_source_quiet',
    'gauge',
    ['source'],
    '1 while a source with quietAfter has sent nothing for that long (its targets show SourceQuiet).',
  ),
  define(
    'kubescribe_branch_info',
    'gauge',
    ['branch', 'repository', 'branch_name'],
    'Always 1: names each branch key in the words of the configuration.',
  ),
] as const;

export type MetricName = (typeof METRICS)[number]['name'];
export type Labels = Record<string, string>;

/** What an exporter gives the recorder: one way to move a metric. */
export interface MetricBackend {
  add(name: MetricName, labels: Labels, value: number): void;
  set(name: MetricName, labels: Labels, value: number): void;
  observe(name: MetricName, labels: Labels, value: number): void;
}

/** Moves the metrics an occurrence concerns. */
export function recordOccurrence(backend: MetricBackend, occurrence: Occurrence): void {
  switch (occurrence.type) {
    case 'ChangesReceived': {
      const { target, intake, accepted, ignored } = occurrence;
      let ignoredCount = 0;
      for (const [reason, n] of Object.entries(ignored)) {
        backend.add('kubescribe_events_ignored_total', { target, reason }, n);
        ignoredCount += n;
      }
      backend.add('kubescribe_events_received_total', { target, intake }, accepted + ignoredCount);
      backend.add('kubescribe_events_accepted_total', { target, intake }, accepted);
      return;
    }
    case 'RequestRefused':
      backend.add(
        'kubescribe_requests_refused_total',
        { target: occurrence.target ?? '', status: String(occurrence.status), reason: occurrence.reason },
        1,
      );
      return;
    case 'BranchMeasured': {
      const branch = { branch: occurrence.branch };
      backend.set('kubescribe_pending_writes', branch, occurrence.pendingWrites);
      backend.set('kubescribe_pending_bytes', branch, occurrence.pendingBytes);
      backend.set('kubescribe_held_changes', branch, occurrence.heldChanges);
      backend.set('kubescribe_held_bytes', branch, occurrence.heldBytes);
      backend.set('kubescribe_intake_paused', branch, occurrence.intakePaused ? 1 : 0);
      backend.set('kubescribe_window_open', branch, occurrence.windowOpen ? 1 : 0);
      backend.set('kubescribe_credentials_refused', branch, occurrence.credentialsRefused ? 1 : 0);
      return;
    }
    case 'IntakePaused':
      backend.add('kubescribe_intake_pauses_total', { branch: occurrence.branch }, 1);
      return;
    case 'WindowOpened':
      backend.add(
        'kubescribe_windows_opened_total',
        { branch: occurrence.branch, target: occurrence.target },
        1,
      );
      return;
    case 'WindowClosed':
      backend.add(
        'kubescribe_windows_closed_total',
        { branch: occurrence.branch, reason: occurrence.reason },
        1,
      );
      return;
    case 'PublicationLanded': {
      const branch = { branch: occurrence.branch };
      backend.add('kubescribe_publications_total', { ...branch, outcome: 'landed' }, 1);
      backend.add('kubescribe_changes_published_total', branch, occurrence.changes);
      for (const ms of occurrence.latenciesMs)
        backend.observe('kubescribe_change_to_pushed_seconds', branch, ms / 1000);
      return;
    }
    case 'PublicationAttemptFailed':
      backend.add('kubescribe_publications_total', { branch: occurrence.branch, outcome: 'failed' }, 1);
      backend.add(
        'kubescribe_publication_retries_total',
        { branch: occurrence.branch, kind: occurrence.kind },
        1,
      );
      return;
    case 'ChangesNotRecorded':
      backend.add(
        'kubescribe_changes_not_recorded_total',
        { target: occurrence.target, reason: occurrence.reason },
        occurrence.changes,
      );
      return;
    case 'WriteSetAside':
      backend.add('kubescribe_publications_total', { branch: occurrence.branch, outcome: 'set-aside' }, 1);
      return;
    case 'SaveResolved':
      backend.add('kubescribe_saves_resolved_total', { outcome: occurrence.outcome }, 1);
      return;
    case 'StatusProjected':
      backend.add('kubescribe_projections_total', { outcome: occurrence.settled ? 'settled' : 'retry' }, 1);
      return;
    case 'PullRequestCalled':
      backend.add('kubescribe_pull_request_calls_total', { outcome: occurrence.outcome }, 1);
      return;
    case 'GitCallTimed':
      backend.observe(
        'kubescribe_git_call_duration_seconds',
        { call: occurrence.call, outcome: outcomeOf(occurrence.ok) },
        occurrence.durationMs / 1000,
      );
      return;
    case 'ActivityRan':
      backend.observe(
        'kubescribe_activity_duration_seconds',
        { activity: occurrence.activity, outcome: outcomeOf(occurrence.ok) },
        occurrence.durationMs / 1000,
      );
      return;
    case 'EntityOperationRan':
      backend.observe(
        'kubescribe_entity_operation_duration_seconds',
        { operation: occurrence.operation, outcome: outcomeOf(occurrence.ok) },
        occurrence.durationMs / 1000,
      );
      return;
    case 'SourceWentQuiet':
      backend.set('kubescribe_source_quiet', { source: occurrence.source }, 1);
      return;
    case 'SourceHeardAgain':
      backend.set('kubescribe_source_quiet', { source: occurrence.source }, 0);
      return;
    case 'IntakeResumed':
      return;
  }
}

/** The branch keys of the configuration in words, as `kubescribe_branch_info` says them. */
export function recordBranches(
  backend: MetricBackend,
  branches: Iterable<{ key: string; repository: string; branch: string }>,
): void {
  for (const { key, repository, branch } of branches)
    backend.set('kubescribe_branch_info', { branch: key, repository, branch_name: branch }, 1);
}

function outcomeOf(ok: boolean): string {
  return ok ? 'ok' : 'failed';
}
