import { canonicalPath } from './canonical-path';
import type { Change, ChangeAuthor, Ignored, NormalizeTarget, ResourceIdentity } from './change';
import type { KubeObject } from './kube-object';
import { renderYaml } from './render-yaml';
import { sanitizeObject } from './sanitize';
import { isSensitive } from './sensitive';

/** A Secret (or configured sensitive resource) is named in the reason, never its data. */
export function sensitiveIgnored(identity: Partial<ResourceIdentity>, index?: number): Ignored {
  return {
    reason: 'sensitive-resource',
    message: `${identity.kind || identity.resource || 'object'} is a sensitive resource and is not recorded (no encryption is configured)`,
    ...(index === undefined ? {} : { index }),
    identity,
  };
}

/**
 * Turns one checked object event into a change at its canonical path, or into an `Ignored` when the
 * object is sensitive. An upsert carries the sanitized YAML; a delete carries no content.
 */
export function toChange({
  identity,
  operation,
  object,
  author,
  resourceVersion,
  target,
  index,
}: {
  identity: ResourceIdentity;
  operation: 'upsert' | 'delete';
  object?: KubeObject;
  author?: ChangeAuthor;
  resourceVersion?: string;
  target: NormalizeTarget;
  index?: number;
}): { change: Change } | { ignored: Ignored } {
  if (isSensitive({ ...identity, sensitiveResources: target.sensitiveResources })) {
    return { ignored: sensitiveIgnored(identity, index) };
  }
  if (operation === 'upsert' && !object) throw new TypeError('toChange: an upsert needs its object');
  const change: Change = {
    path: canonicalPath({ targetPath: target.path, identity }),
    operation,
    ...(operation === 'upsert' && object ? { content: renderYaml(sanitizeObject(object)) } : {}),
    identity,
    ...(resourceVersion ? { resourceVersion } : {}),
    ...(author ? { author } : {}),
  };
  return { change };
}
