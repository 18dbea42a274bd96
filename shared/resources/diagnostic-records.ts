import { z } from 'zod';

/**
 * Azure Monitor resource logs as a diagnostic setting streams them to Event Hubs: each event body
 * is `{"records": [...]}`, and an AKS control-plane record carries one apiserver audit event in
 * `properties.log`, as a JSON string (learn.microsoft.com/azure/azure-monitor/essentials/
 * resource-logs-schema; the consumer sysdiglabs/aks-kubernetes-audit-log `HubEventUnpacker.cs`
 * reads `records[].properties.log` the same way). The object form of `log` is read too: Azure
 * Monitor's tables show it as a dynamic column, and a pipeline that re-serializes records may send it so.
 */
const diagnosticRecordSchema = z.looseObject({
  category: z.string(),
  time: z.string().optional(),
  properties: z.looseObject({ log: z.union([z.string(), z.looseObject({})]) }).optional(),
});

const diagnosticBodySchema = z.looseObject({ records: z.array(z.unknown()) });

/** The audit categories of an AKS cluster: `kube-audit` has every verb, `kube-audit-admin` all but get and list. */
export const AUDIT_CATEGORIES = ['kube-audit', 'kube-audit-admin'] as const;

/** What the apiserver writes when an object exceeds the log's size limit (AKSAuditAdmin table reference). */
export const TOO_BIG_OBJECT = 'skipped-too-big-size-object';

/** One audit event read out of a diagnostic record, with where it came from. */
export interface DiagnosticAuditEvent {
  category: string;
  /** The audit event as the apiserver logged it (checked later by the audit normalizer). */
  event: Record<string, unknown>;
  /** `body` index in the batch and `record` index in its `records`. */
  at: { body: number; record: number };
}

/** A body or record that could not be read: reported, never silently dropped. */
export interface UnreadableRecord {
  at: { body: number; record?: number };
  message: string;
}

export interface DiagnosticBatch {
  events: DiagnosticAuditEvent[];
  unreadable: UnreadableRecord[];
  /** Records of categories not read, by category (`guard`, `kube-apiserver`, …). */
  otherCategories: Record<string, number>;
}

/**
 * Reads a batch of Event Hubs bodies (as the Functions Node worker hands them: parsed JSON, a
 * string, or bytes) into the audit events of the `categories` it reads. A body or record that is
 * not a diagnostic record with an audit event is listed in `unreadable` and the rest still read.
 */
export function readDiagnosticBatch(
  bodies: readonly unknown[],
  categories: readonly string[],
): DiagnosticBatch {
  const batch: DiagnosticBatch = { events: [], unreadable: [], otherCategories: {} };
  bodies.forEach((raw, body) => {
    const parsed = diagnosticBodySchema.safeParse(jsonOf(raw));
    if (!parsed.success) {
      batch.unreadable.push({
        at: { body },
        message: 'the event body is not a diagnostic log ({"records": [...]})',
      });
      return;
    }
    parsed.data.records.forEach((item, record) => {
      const parsedRecord = diagnosticRecordSchema.safeParse(item);
      if (!parsedRecord.success) {
        batch.unreadable.push({ at: { body, record }, message: 'the record has no category' });
        return;
      }
      const { category, properties } = parsedRecord.data;
      if (!categories.includes(category)) {
        batch.otherCategories[category] = (batch.otherCategories[category] ?? 0) + 1;
        return;
      }
      const event = typeof properties?.log === 'string' ? jsonOf(properties.log) : properties?.log;
      if (typeof event !== 'object' || event === null || Array.isArray(event)) {
        batch.unreadable.push({
          at: { body, record },
          message: `the ${category} record's properties.log is not an audit event`,
        });
        return;
      }
      batch.events.push({ category, event: event as Record<string, unknown>, at: { body, record } });
    });
  });
  return batch;
}

function jsonOf(raw: unknown): unknown {
  const text =
    typeof raw === 'string' ? raw : raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : undefined;
  if (text === undefined) return raw;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
