export {
  type AdmissionResult,
  admissionResponse,
  admissionReviewSchema,
  COMMIT_REQUEST_GROUP,
  COMMIT_REQUEST_RESOURCE,
  normalizeAdmissionReview,
  type SaveRegistration,
} from './admission';
export { auditEventListSchema, normalizeAuditEvents } from './audit';
export { CLUSTER_SCOPE_FOLDER, canonicalPath, fileName, MAX_FILE_NAME_BYTES } from './canonical-path';
export type {
  Change,
  ChangeAuthor,
  Ignored,
  IgnoreReason,
  NormalizeResult,
  NormalizeTarget,
  ResourceIdentity,
} from './change';
export {
  type CommitRequestSpec,
  checkSaveRules,
  commitRequestSpecSchema,
  saveMessageSchema,
  saveWindowSchema,
} from './commit-request';
export { PayloadInvalid, type PayloadIssue, PayloadRendersTooLarge } from './errors';
export {
  type ChangeOrigin,
  type Exclusion,
  type ExclusionCheck,
  exclusionCheck,
  exclusionSchema,
  latestFieldManager,
} from './exclusion';
export { type KubeObject, kubeObjectSchema } from './kube-object';
export { MAX_OBJECT_DEPTH, MAX_RENDERED_BYTES } from './render-bounds';
export { renderYaml } from './render-yaml';
export { sanitizeObject } from './sanitize';
export {
  isSensitive,
  SENSITIVE_KINDS,
  type SensitiveCategory,
  type SensitiveKind,
  sensitivity,
} from './sensitive';
export {
  normalizeSnapshot,
  type SnapshotResult,
  snapshotBodySchema,
  snapshotPartSchema,
  snapshotScopeSchema,
} from './snapshot';
export { REQUEST_RENDERED_BYTES } from './to-change';
export { normalizeWatchEvents, type WatchEventsBody, watchEventsBodySchema } from './watch-events';
