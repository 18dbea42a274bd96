import type { EventHubSourceConfig } from '../../config';
import {
  type Change,
  type Ignored,
  normalizeAuditEvents,
  PayloadInvalid,
  type ResourceIdentity,
} from '../../resources';
import {
  type DiagnosticAuditEvent,
  readDiagnosticBatch,
  TOO_BIG_OBJECT,
  type UnreadableRecord,
} from '../../resources/diagnostic-records';
import { emit } from '../../telemetry/bus';
import { acceptChanges } from '../http/accept-changes';
import type { BranchGateway } from '../http/branch-gateway';
import { branchHandle } from '../http/branch-handle';
import { normalizeTarget, reportReceived } from '../http/ingest-routes';
import { type NotRecorded, notRecorded } from '../http/not-recorded';
import type { AppRuntime, ResolvedTarget } from '../runtime/app-runtime';
import {
  type FeedCandidate,
  type FeedMemoryStore,
  type FeedRecord,
  feedKey,
  judge,
  readRecord,
  remember,
  storeRecord,
} from './feed-memory';

/** What one target took of a batch. */
export interface TargetOutcome {
  target: string;
  accepted: number;
  ignored: number;
  refused: number;
}

/** One audit event's change, with what the feed memory judges it by. */
interface Candidate {
  change: Change;
  feed: FeedCandidate;
  key: string;
}

/**
 * Records a batch of Event Hubs bodies from an AKS diagnostic setting on the source's targets: the
 * audit events go through the audit webhook's normalizer and admission, with the same authors;
 * events already recorded (a redelivery) or older than what was recorded for their object (another
 * partition's, late) are ignored; objects the log left out, and records that cannot be read, are
 * reported as not recorded. Resolves once all of it is durable; a rejection means the batch must be
 * delivered again (nothing it recorded is recorded twice).
 */
export async function admitDiagnosticBatch({
  runtime,
  gateway,
  source,
  bodies,
  at,
}: {
  runtime: AppRuntime;
  gateway: BranchGateway;
  source: EventHubSourceConfig;
  bodies: readonly unknown[];
  at: string;
}): Promise<TargetOutcome[]> {
  const memory = runtime.feedMemory;
  if (!memory) throw new Error('the Event Hubs feed needs the feed memory beside the payloads');
  const batch = readDiagnosticBatch(bodies, source.eventHub.categories);
  if (runtime.activity.heard(source.name, Date.parse(at)))
    emit({ type: 'SourceHeardAgain', source: source.name });
  const outcomes: TargetOutcome[] = [];
  for (const name of source.targets) {
    const target = runtime.targets.get(name)!;
    outcomes.push(await admitOnTarget({ runtime, gateway, memory, target, batch, at }));
  }
  return outcomes;
}

async function admitOnTarget({
  runtime,
  gateway,
  memory,
  target,
  batch,
  at,
}: {
  runtime: AppRuntime;
  gateway: BranchGateway;
  memory: FeedMemoryStore;
  target: ResolvedTarget;
  batch: ReturnType<typeof readDiagnosticBatch>;
  at: string;
}): Promise<TargetOutcome> {
  const candidates: Candidate[] = [];
  const ignored: Ignored[] = [];
  const unrecorded: NotRecorded[] = batch.unreadable.map(unreadable);
  for (const item of batch.events) {
    const outcome = normalizeOne(item, target);
    if ('change' in outcome) candidates.push(outcome);
    else if ('notRecorded' in outcome) unrecorded.push(outcome.notRecorded);
    else ignored.push(...outcome.ignored);
  }

  const records = new Map<string, FeedRecord | undefined>();
  await Promise.all(
    [...new Set(candidates.map(({ key }) => key))].map(async (key) => {
      records.set(key, (await readRecord(memory, key)).record);
    }),
  );
  const kept: Candidate[] = [];
  for (const candidate of candidates) {
    const verdict = judge(records.get(candidate.key), candidate.feed);
    if (verdict === 'new') {
      kept.push(candidate);
      records.set(candidate.key, remember(records.get(candidate.key), candidate.feed));
      continue;
    }
    const { identity } = candidate.change;
    ignored.push({
      reason: verdict === 'duplicate' ? 'duplicate-delivery' : 'older-than-recorded',
      message:
        verdict === 'duplicate'
          ? `audit event ${candidate.feed.auditID} was already recorded`
          : `a newer change of ${identity.resource} ${identity.name} was already recorded`,
      auditID: candidate.feed.auditID,
      identity,
    });
  }

  const { recorded, refused } = await acceptChanges({
    runtime,
    branch: branchHandle(runtime, gateway, target),
    changes: kept.map(({ change }) => change),
    notRecorded: unrecorded,
    attribution: 'audit',
    at,
  });
  // Only once the changes are durable: a batch that failed before is delivered again and admitted.
  await Promise.all(
    [...new Set(kept.map(({ key }) => key))].map((key) => storeRecord(memory, key, records.get(key)!)),
  );
  reportReceived(target, 'audit', recorded, ignored);
  return {
    target: target.config.name,
    accepted: recorded.length,
    ignored: ignored.length,
    refused: refused.length,
  };
}

type Normalized = Candidate | { notRecorded: NotRecorded } | { ignored: Ignored[] };

/** One audit event through the audit webhook's normalizer, as a one-item EventList. */
function normalizeOne({ category, event, at }: DiagnosticAuditEvent, target: ResolvedTarget): Normalized {
  const where = `${category} record ${at.record} of event ${at.body}`;
  // An object the log left out still passes every rule that does not read it; only then is it missing.
  const tooBig = event.responseObject === TOO_BIG_OBJECT && event.verb !== 'delete';
  const item = tooBig ? { ...event, responseObject: undefined } : event;
  let result: ReturnType<typeof normalizeAuditEvents>;
  try {
    result = normalizeAuditEvents({
      body: { apiVersion: 'audit.k8s.io/v1', kind: 'EventList', items: [item] },
      target: normalizeTarget(target),
    });
  } catch (error) {
    if (!(error instanceof PayloadInvalid)) throw error;
    return { notRecorded: notRecorded(refOf(event), 'invalid-audit-event', `${where}: ${error.message}`) };
  }
  const [change] = result.changes;
  if (change) {
    return {
      change,
      key: feedKey(target.config.name, change.path),
      feed: {
        auditID: String(event.auditID),
        // a replica count is an update of its parent (the Scale carries the parent's resourceVersion);
        // a namespace's or a collection's removal orders as a delete, by the apiserver's time
        operation: change.operation === 'upsert' || change.operation === 'set-replicas' ? 'upsert' : 'delete',
        resourceVersion: change.resourceVersion,
        stageTimestamp: typeof event.stageTimestamp === 'string' ? event.stageTimestamp : undefined,
      },
    };
  }
  const missing = result.ignored.find(({ reason }) => reason === 'no-response-object');
  if (tooBig && missing) {
    return {
      notRecorded: notRecorded(
        { ...refOf(event), ...missing.identity },
        'too-big-for-audit-log',
        `the audit log left the object out (${TOO_BIG_OBJECT}); the forwarder's next event or snapshot records it`,
      ),
    };
  }
  return { ignored: result.ignored };
}

function unreadable({ at, message }: UnreadableRecord): NotRecorded {
  const where = at.record === undefined ? `event ${at.body}` : `record ${at.record} of event ${at.body}`;
  return notRecorded({}, 'unreadable-diagnostic-record', `${where}: ${message}`);
}

/** The object an event names, for reporting it (nothing of its data). */
function refOf(event: Record<string, unknown>): Partial<ResourceIdentity> {
  const ref = event.objectRef;
  if (typeof ref !== 'object' || ref === null) return {};
  const text = (field: string): string | undefined => {
    const value = (ref as Record<string, unknown>)[field];
    return typeof value === 'string' && value !== '' ? value.slice(0, 253) : undefined;
  };
  const [group, version, resource, namespace, name] = [
    'apiGroup',
    'apiVersion',
    'resource',
    'namespace',
    'name',
  ].map(text);
  return {
    ...(group ? { group } : {}),
    ...(version ? { version } : {}),
    ...(resource ? { resource } : {}),
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
}
