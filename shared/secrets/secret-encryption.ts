import { createHmac } from 'node:crypto';
import type { KubeObject } from '../resources/kube-object';
import { renderYaml } from '../resources/render-yaml';
import { encryptSopsDocument, SOPS_ENCRYPTED_REGEX } from './sops-document';

/** The creation-rules file `sops` reads at the target's root, so `sops edit` encrypts like kubescribe. */
export const SOPS_RULES_FILE = '.sops.yaml';

// Before any change time a cluster reports (an object posted without managedFields or creationTimestamp).
const UNKNOWN_TIME = '1970-01-01T00:00:00Z';

/**
 * A target's Secret encryptor, as `NormalizeTarget.encryptSecret` takes it. The derivation key is
 * the secret of `encryption.keyEnv`, narrowed to the target (HMAC over its name), so two targets
 * never share one.
 */
export function secretEncryptor({
  recipients,
  key,
  target,
}: {
  recipients: readonly string[];
  key: string;
  target: string;
}): (secret: { object: KubeObject; plaintextYaml: string }) => string {
  const derivationKey = createHmac('sha256', key).update(`kubescribe target\0${target}`).digest();
  return ({ object, plaintextYaml }) =>
    encryptSopsDocument({
      plaintextYaml,
      lastModified: secretLastModified(object),
      encryption: { recipients, derivationKey },
    });
}

/**
 * When the Secret last changed as the API server recorded it: the latest `managedFields[].time`,
 * else `creationTimestamp`. It becomes `sops.lastmodified`, so an unchanged Secret gives the same
 * file; a request's arrival time would not.
 */
export function secretLastModified(object: KubeObject): string {
  const metadata = object.metadata as { managedFields?: unknown; creationTimestamp?: unknown };
  const times = Array.isArray(metadata.managedFields)
    ? metadata.managedFields.map((entry) => (entry as { time?: unknown } | null)?.time)
    : [];
  const parsed = [...times, metadata.creationTimestamp]
    .filter((time): time is string => typeof time === 'string')
    .map((time) => Date.parse(time))
    .filter((ms) => Number.isFinite(ms));
  if (parsed.length === 0) return UNKNOWN_TIME;
  return new Date(Math.max(...parsed)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The `.sops.yaml` for a target: Secret files under it are encrypted for these recipients. */
export function sopsRules(recipients: readonly string[]): string {
  return renderYaml({
    creation_rules: [
      {
        path_regex: '(^|/)secrets/[^/]+\\.sops\\.yaml$',
        encrypted_regex: SOPS_ENCRYPTED_REGEX,
        age: recipients.join(','),
      },
    ],
  });
}
