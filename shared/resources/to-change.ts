import { canonicalPath } from './canonical-path';
import type { Change, ChangeAuthor, Ignored, NormalizeTarget, ResourceIdentity } from './change';
import { PayloadRendersTooLarge } from './errors';
import type { KubeObject } from './kube-object';
import { type BoundsProblem, renderBounded } from './render-bounds';

/** Bytes of YAML one request's objects may render to in all (see `NormalizeTarget.renderBudget`). */
export const REQUEST_RENDERED_BYTES = 32 * 1024 * 1024;

import { sanitizeObject } from './sanitize';
import { type Sensitivity, sensitivity } from './sensitive';

/** A sensitive object is named in the reason (kind, namespace, name), never its data. */
export function sensitiveIgnored(
  identity: Partial<ResourceIdentity>,
  why: Sensitivity,
  index?: number,
  encryptionProblem?: string,
): Ignored {
  const what = identity.kind || why.kind?.kind || identity.resource || 'object';
  const message =
    why.category === 'credential'
      ? `${what} carries credentials and is never recorded`
      : why.category === 'secret' && encryptionProblem
        ? `${what} is not recorded: the target's encryption is misconfigured (${encryptionProblem})`
        : `${what} is a sensitive resource and is not recorded (no encryption is configured)`;
  return {
    reason: 'sensitive-resource',
    message,
    ...(index === undefined ? {} : { index }),
    identity,
  };
}

/** Whether a sensitive object is refused: every one is, but a Secret on a target that encrypts it. */
export function isRefused(why: Sensitivity, target: NormalizeTarget): boolean {
  return !(why.category === 'secret' && target.encryptSecret !== undefined);
}

/** A Namespace: once it is gone, nothing under its folder exists in the cluster either. */
function isNamespace(identity: ResourceIdentity): boolean {
  return identity.group === '' && identity.resource === 'namespaces';
}

/**
 * Turns one checked object event into a change at its canonical path, an `Ignored` when the object
 * is sensitive, or the bounds it breaks (too deep, or too large once rendered; `path` is relative to
 * the object). An upsert carries the sanitized YAML; a delete carries no content, and a Namespace's
 * delete removes its folder too (`delete-namespace`).
 */
export function toChange({
  identity,
  operation,
  object,
  author,
  resourceVersion,
  uid,
  created,
  target,
  index,
}: {
  identity: ResourceIdentity;
  operation: 'upsert' | 'delete';
  /** The event created the object; ignored for a delete. */
  created?: boolean;
  object?: KubeObject;
  author?: ChangeAuthor;
  resourceVersion?: string;
  /** The object's uid when `object` does not carry it (a delete answered by a Status). */
  uid?: string;
  target: NormalizeTarget;
  index?: number;
}): { change: Change } | { ignored: Ignored } | { outOfBounds: BoundsProblem; identity: ResourceIdentity } {
  const sensitive = sensitivity({
    group: identity.group,
    resource: identity.resource,
    kind: identity.kind,
    sensitiveResources: target.sensitiveResources,
  });
  if (sensitive && isRefused(sensitive, target))
    return { ignored: sensitiveIgnored(identity, sensitive, index, target.encryptionProblem) };
  const encrypt = sensitive?.category === 'secret' ? target.encryptSecret : undefined;
  if (operation === 'upsert' && !object) throw new TypeError('toChange: an upsert needs its object');
  let content: string | undefined;
  if (operation === 'upsert' && object) {
    const rendered = renderBounded(sanitizeObject(object));
    if (!('content' in rendered)) return { outOfBounds: rendered, identity };
    content = encrypt ? encrypt({ object, plaintextYaml: rendered.content }) : rendered.content;
    if (target.renderBudget) {
      target.renderBudget.leftBytes -= encrypt ? Buffer.byteLength(content) : rendered.bytes;
      if (target.renderBudget.leftBytes < 0) throw new PayloadRendersTooLarge(REQUEST_RENDERED_BYTES);
    }
  }
  const objectUid = object?.metadata.uid || uid;
  // built field by field: an object spread of each optional field made a garbage object per field
  const change: Change = {
    path: canonicalPath({
      targetPath: target.path,
      identity,
      extension: encrypt ? '.sops.yaml' : undefined,
      paths: target.paths,
    }),
    operation: operation === 'delete' && isNamespace(identity) ? 'delete-namespace' : operation,
    identity,
  };
  if (content !== undefined) change.content = content;
  if (resourceVersion) change.resourceVersion = resourceVersion;
  if (objectUid) change.uid = objectUid;
  if (author) change.author = author;
  if (created && operation === 'upsert') change.created = true;
  return { change };
}
