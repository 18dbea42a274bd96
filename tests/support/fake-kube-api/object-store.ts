import { randomUUID } from 'node:crypto';

/** A plain Kubernetes object as JSON. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

/** One served resource type (a CRD's or a built-in's), as discovery would describe it. */
export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** With a status subresource, the main resource ignores `.status` and `/status` ignores the rest. */
  statusSubresource: boolean;
}

/** A change as a watch stream would carry it; the store keeps them so list + watch can be added later. */
export interface StoredChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resourceVersion: number;
  key: string;
  object: KubeObject;
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * The fake apiserver's storage: one revision counter for every object (like etcd), a `uid` per
 * created object, `generation` bumped on spec changes only, and an ordered change log.
 */
export class ObjectStore {
  private revision = 0;
  private readonly objects = new Map<string, KubeObject>();
  private readonly listeners = new Set<(change: StoredChange) => void>();
  readonly changes: StoredChange[] = [];
  /** The oldest resourceVersion a watch may still start from; older ones get 410 Expired (etcd compaction). */
  oldestWatchableRevision = 0;

  constructor(private readonly now: () => Date = () => new Date()) {}

  static key(type: ResourceType, namespace: string | undefined, name: string): string {
    return [type.group, type.resource, namespace ?? '', name].join('/');
  }

  /** The collection resourceVersion: the newest revision of any write. */
  get currentRevision(): number {
    return this.revision;
  }

  /** Current objects whose key starts with `prefix`, in key order (a list's stable order). */
  list(prefix: string): { key: string; object: KubeObject }[] {
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, object]) => ({ key, object: clone(object) }));
  }

  /** Calls `listener` with every later change; returns the unsubscribe function. */
  subscribe(listener: (change: StoredChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets the change history, as etcd compaction does: watches from any earlier revision expire. */
  compact(): void {
    this.oldestWatchableRevision = this.revision;
    this.changes.length = 0;
  }

  get(key: string): KubeObject | undefined {
    const object = this.objects.get(key);
    return object === undefined ? undefined : clone(object);
  }

  /** Stores a new object and returns it as the server would: with uid, resourceVersion and generation. */
  create(key: string, object: KubeObject): KubeObject {
    const stored = clone(object);
    stored.metadata.uid = randomUUID();
    stored.metadata.generation = 1;
    stored.metadata.creationTimestamp = this.now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    return this.write('ADDED', key, stored);
  }

  /** Replaces a stored object; callers have already checked preconditions. */
  replace(key: string, object: KubeObject, { specChanged }: { specChanged: boolean }): KubeObject {
    const stored = clone(object);
    const previous = this.objects.get(key);
    stored.metadata.generation = (previous?.metadata.generation ?? 0) + (specChanged ? 1 : 0);
    return this.write('MODIFIED', key, stored);
  }

  delete(key: string): KubeObject | undefined {
    const previous = this.objects.get(key);
    if (previous === undefined) return undefined;
    this.objects.delete(key);
    this.revision += 1;
    const gone = {
      ...clone(previous),
      metadata: { ...previous.metadata, resourceVersion: String(this.revision) },
    };
    this.record({ type: 'DELETED', resourceVersion: this.revision, key, object: gone });
    return clone(gone);
  }

  private write(type: StoredChange['type'], key: string, object: KubeObject): KubeObject {
    this.revision += 1;
    object.metadata.resourceVersion = String(this.revision);
    this.objects.set(key, object);
    this.record({ type, resourceVersion: this.revision, key, object: clone(object) });
    return clone(object);
  }

  private record(change: StoredChange): void {
    this.changes.push(change);
    for (const listener of this.listeners) listener(change);
  }
}
