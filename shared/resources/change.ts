import type { PathMode } from './canonical-path';
import type { ExclusionCheck } from './exclusion';
import type { KubeObject } from './kube-object';

/** Which Kubernetes object a change concerns. `group` is `''` for the core group. */
export type ResourceIdentity = {
  group: string;
  version: string;
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
  /** Object kind, e.g. `Deployment`; `''` when a delete did not reveal it (audit deletes answered by a Status). */
  kind: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  /** `*` for a collection. */
  name: string;
};

/** Who made a change, as the cluster authenticated them. */
export type ChangeAuthor = { username: string; uid?: string; groups?: string[] };

/**
 * One object to write or remove at its canonical path inside a target. `content` is the sanitized
 * object as deterministic YAML, so equal objects give equal bytes and downstream can skip an update
 * whose content hash is unchanged.
 */
export type Change = {
  /** Repository path: `{target path}/{namespace|_cluster}/{group}/{resource}/{name}.yaml`. */
  path: string;
  /**
   * `delete-collection`: the files of a collection its selector matches (`path` is the collection's
   * folder, `content` the `collection-delete` payload); `delete-namespace`: a namespace's file and
   * every file under its folder; `set-replicas`: `spec.replicas` in the held file at `path`
   * (`content` the `replicas` payload). These are applied to what the branch holds when published.
   */
  operation: 'upsert' | 'delete' | 'delete-collection' | 'delete-namespace' | 'set-replicas';
  /** The YAML document of an upsert, or a scoped operation's payload (`scoped-changes.ts`). */
  content?: string;
  identity: ResourceIdentity;
  resourceVersion?: string;
  /**
   * The object's `metadata.uid` (a delete answered by a Status: its `details.uid`): with the
   * resourceVersion, what lets an audit record claim the forwarder's change of the same object.
   */
  uid?: string;
  /** Absent means the configured committer. */
  author?: ChangeAuthor;
  /** The object was created (watch `ADDED`, audit `create`), for the `[CREATE]` commit subject. */
  created?: true;
  /** A collection delete's selectors as the request wrote them, for its commit subject. */
  selector?: string;
};

/** Why an input item made no change. Kebab-case, stable: clients and tests match on it. */
export type IgnoreReason =
  | 'stage-not-complete'
  | 'verb-not-recorded'
  | 'request-failed'
  | 'dry-run'
  | 'no-object-ref'
  | 'subresource'
  | 'selector-not-evaluable'
  | 'no-response-object'
  | 'unnamed-object'
  | 'unchanged'
  | 'sensitive-resource'
  | 'object-too-deep'
  | 'object-too-large'
  | 'not-a-commit-request'
  | 'not-a-create'
  | 'no-object-uid'
  | 'invalid-commit-request'
  | 'excluded'
  /** An at-least-once feed delivered an audit event already recorded (same auditID). */
  | 'duplicate-delivery'
  /** An at-least-once feed delivered a change older than one already recorded for the object. */
  | 'older-than-recorded';

/** An input item that was read and deliberately not turned into a change, with the reason. */
export type Ignored = {
  reason: IgnoreReason;
  /** A human sentence; never contains object data. */
  message: string;
  /** Position of the item in the payload (`items[i]`, `events[i]`, `objects[i]`). */
  index?: number;
  auditID?: string;
  identity?: Partial<ResourceIdentity>;
  /** The audit policy level of an event that carried no object (`Metadata`, `Request`). */
  auditLevel?: string;
};

/** What a cluster payload turned into: the changes to record and the items deliberately left out. */
export type NormalizeResult = { changes: Change[]; ignored: Ignored[] };

/** Per-target settings a normalizer needs. */
export type NormalizeTarget = {
  /** The target's folder in the repository; `.` is the root. */
  path: string;
  /** How the target names its files (`native` when absent): `targets[].paths`. */
  paths?: PathMode;
  /**
   * Extra resources refused like Secrets: `resource` (any group) or `group/resource`. Core `secrets`
   * is always refused.
   */
  sensitiveResources?: readonly string[];
  /**
   * Bytes of YAML the whole payload may still render to: each object is bounded on its own, but a
   * 10 MiB body of many deep objects could still render to hundreds of MiB. Spent as objects render.
   */
  renderBudget?: { leftBytes: number };
  /**
   * Encrypts a Secret (its sanitized YAML, kept in memory only) into the SOPS document written at
   * `{name}.sops.yaml`. Absent: the target does not encrypt, and Secrets are refused.
   */
  encryptSecret?: (secret: { object: KubeObject; plaintextYaml: string }) => string;
  /** Why the target's encryption cannot be used: a Secret is refused with this reason. */
  encryptionProblem?: string;
  /** Why a change is excluded by the target's or source's `exclude` rules; absent: none configured. */
  excluded?: ExclusionCheck;
};
