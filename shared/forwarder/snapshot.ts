import { randomUUID } from 'node:crypto';
import { SNAPSHOT_PARTS_MAX } from '../api/snapshot-parts';
import { stringifyExactJson } from '../json/exact-json';
import { forwardedObject } from './forwarded-object';
import type { KubeObject } from './kube-reads';
import type { SnapshotProgress } from './progress';
import type { WatchScope } from './scopes';
import type { Webhook } from './webhook';

/** Snapshot parts are cut at whichever comes first: this many objects or this many bytes. */
export interface PartLimits {
  partObjects: number;
  partBytes: number;
}

/**
 * kubescribe takes at most {@link SNAPSHOT_PARTS_MAX} parts a snapshot, so after each tenth of that
 * a part may hold twice as many objects: 1,000 parts then carry about 102,300 × `partObjects`
 * objects (51 million at the default 500) before the byte limit, which stays as configured.
 */
const PARTS_PER_DOUBLING = SNAPSHOT_PARTS_MAX / 10;

/**
 * Posts one scope's snapshot through `…/snapshots/{id}/parts` as objects arrive, then `complete`
 * with the scope and revision. Only a completed snapshot is applied (and swept), so a crash midway
 * deletes nothing; the next attempt uses a new id.
 */
export class SnapshotUpload {
  private readonly id = randomUUID();
  private entries: { resource: string; object: KubeObject }[] = [];
  private bytes = 0;
  private posted = 0;
  private parts = 0;

  constructor(
    private readonly webhook: Webhook,
    private readonly scope: WatchScope,
    private readonly scopeName: string,
    private readonly limits: PartLimits,
    private readonly progress: SnapshotProgress,
  ) {}

  /** Adds an object; posts a part when the part is full. */
  async add(object: KubeObject, total?: number): Promise<void> {
    const entry = { resource: this.scope.resource, object: forwardedObject(object) };
    const size = stringifyExactJson(entry).length;
    if (this.entries.length > 0 && this.bytes + size > this.limits.partBytes) await this.postPart(total);
    this.entries.push(entry);
    this.bytes += size;
    if (this.entries.length >= this.objectsPerPart()) await this.postPart(total);
  }

  /** Posts the last part and completes the snapshot at `revision`. Returns how many objects it held. */
  async complete(revision: string): Promise<number> {
    if (this.entries.length > 0) await this.postPart(undefined);
    const { group, resource, namespace } = this.scope;
    // Naming the part count lets kubescribe apply the snapshot only once every part has arrived,
    // whatever order the engine delivers them in.
    await this.webhook.post(`/snapshots/${this.id}/complete`, {
      scope: { group, resource, ...(namespace === undefined ? {} : { namespace }) },
      revision,
      ...(this.parts > 0 ? { parts: this.parts } : {}),
    });
    this.progress.done(this.scopeName, this.posted);
    return this.posted;
  }

  private objectsPerPart(): number {
    return this.limits.partObjects * 2 ** Math.floor(this.parts / PARTS_PER_DOUBLING);
  }

  private async postPart(total: number | undefined): Promise<void> {
    const objects = this.entries;
    this.entries = [];
    this.bytes = 0;
    await this.webhook.post(`/snapshots/${this.id}/parts`, { objects });
    this.parts += 1;
    this.posted += objects.length;
    this.progress.advanced(this.scopeName, this.posted, total);
  }
}
