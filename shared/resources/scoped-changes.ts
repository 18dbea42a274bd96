import { parse } from 'yaml';
import { z } from 'zod';
import { type Selector, selectorSchema, selects } from './selectors';

/**
 * The payloads of the changes applied to what kubescribe holds when they are published (a
 * collection delete, a replica count), as stored in the payload store between the request and the
 * publication: durable, so versioned.
 */
const collectionDeleteSchema = z.strictObject({
  version: z.literal(1),
  kind: z.literal('collection-delete'),
  /** Absent for a cluster-scoped collection. */
  namespace: z.string().optional(),
  group: z.string(),
  resource: z.string(),
  selector: selectorSchema,
});
export type CollectionDelete = z.output<typeof collectionDeleteSchema>;

const replicasSchema = z.strictObject({
  version: z.literal(1),
  kind: z.literal('replicas'),
  replicas: z.number().int().nonnegative().max(2_147_483_647),
});

export function collectionDeletePayload(collection: Omit<CollectionDelete, 'version' | 'kind'>): string {
  return JSON.stringify({ version: 1, kind: 'collection-delete', ...collection });
}

export function readCollectionDelete(text: string): CollectionDelete {
  return collectionDeleteSchema.parse(JSON.parse(text));
}

export function replicasPayload(replicas: number): string {
  return JSON.stringify({ version: 1, kind: 'replicas', replicas });
}

export function readReplicas(text: string): number {
  return replicasSchema.parse(JSON.parse(text)).replicas;
}

export function hasSelector(selector: Selector): boolean {
  return selector.labels.length > 0 || selector.fields.length > 0;
}

const heldMetadataSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
});

/**
 * Whether a held file's object satisfies the selector. A file that is not a recorded object (edited
 * by hand into something else) is left in place: removing what cannot be read would be a guess.
 */
export function heldFileSelected(selector: Selector, content: Uint8Array): boolean {
  let document: unknown;
  try {
    document = parse(new TextDecoder().decode(content));
  } catch {
    return false;
  }
  const held = heldMetadataSchema.safeParse(document);
  if (!held.success) return false;
  const { name, namespace, labels = {} } = held.data.metadata;
  return selects(selector, { name, ...(namespace ? { namespace } : {}), labels });
}

const SPEC = /^spec:\n/m;
const SPEC_KEY = /^ {2}([^\s#:][^:]*):/;

/**
 * A recorded file with `spec.replicas` set, edited in place: only that line changes, so every other
 * byte stays as recorded, and the file is what rendering the object with that count gives (keys
 * under `spec` are sorted, so a missing `replicas` goes before the first key after it). Undefined
 * when the file has no `spec` block to hold it.
 */
export function withReplicas(content: Uint8Array, replicas: number): string | undefined {
  const text = new TextDecoder().decode(content);
  const spec = SPEC.exec(text);
  if (!spec) return undefined;
  const lines = text.slice(spec.index + spec[0].length).split('\n');
  const head = text.slice(0, spec.index + spec[0].length);
  const line = `  replicas: ${replicas}`;
  let end = lines.findIndex((candidate) => candidate !== '' && !candidate.startsWith(' '));
  if (end < 0) end = lines.length;
  for (let i = 0; i < end; i++) {
    const key = SPEC_KEY.exec(lines[i]!)?.[1];
    if (key === undefined) continue;
    if (key === 'replicas') {
      lines[i] = line;
      return head + lines.join('\n');
    }
    if (key > 'replicas') {
      lines.splice(i, 0, line);
      return head + lines.join('\n');
    }
  }
  // after the last line of the block (its trailing empty string is the file's final newline)
  const last = end === lines.length && lines.at(-1) === '' ? end - 1 : end;
  lines.splice(last, 0, line);
  return head + lines.join('\n');
}
