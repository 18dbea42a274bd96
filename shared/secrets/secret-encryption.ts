import { createHmac } from 'node:crypto';
import { blobOidOf } from '../git/blob-oid';
import type { KubeObject } from '../resources/kube-object';
import { renderYaml } from '../resources/render-yaml';
import {
  escrowRecord,
  heldSecret,
  readEscrowRecord,
  splitHeldSecret,
  unwrapDataKey,
  wrapDataKey,
} from './key-escrow';
import {
  encryptSopsDocument,
  rewrapSopsDocument,
  SOPS_ENCRYPTED_REGEX,
  type SopsEncryption,
  sopsRecipients,
} from './sops-document';

/** The creation-rules file `sops` reads at the target's root, so `sops edit` encrypts like kubescribe. */
export const SOPS_RULES_FILE = '.sops.yaml';

// Before any change time a cluster reports (an object posted without managedFields or creationTimestamp).
const UNKNOWN_TIME = '1970-01-01T00:00:00Z';

/**
 * A target's encryption: its recipients and its derivation key, the secret of `encryption.keyEnv`
 * narrowed to the target (HMAC over its name), so two targets never share one.
 */
export function targetEncryption({
  recipients,
  key,
  target,
}: {
  recipients: readonly string[];
  key: string;
  target: string;
}): SopsEncryption {
  return {
    recipients,
    derivationKey: createHmac('sha256', key).update(`kubescribe target\0${target}`).digest(),
  };
}

/**
 * A target's Secret encryptor, as `NormalizeTarget.encryptSecret` takes it: the held payload, the
 * SOPS document followed by its wrapped data key (shared/secrets/key-escrow.ts).
 */
export function secretEncryptor(
  encryption: SopsEncryption,
): (secret: { object: KubeObject; plaintextYaml: string }) => string {
  return ({ object, plaintextYaml }) => {
    const { document, dataKey } = encryptSopsDocument({
      plaintextYaml,
      lastModified: secretLastModified(object),
      encryption,
    });
    return heldSecret(document, wrapDataKey(dataKey, encryption.derivationKey));
  };
}

/** Where published files' wrapped data keys are kept (shared/payloads/key-escrow-store.ts). */
export type KeyEscrow = {
  put(name: string, wrapped: string): Promise<void>;
  get(name: string): Promise<string | undefined>;
};

export type SecretFileOutcome = 'unchanged' | 'rewrapped' | 'kept';

/**
 * What a held Secret payload becomes in Git under the target's current encryption: wrapped for the
 * current recipients, the file and its wrapped data key kept in the escrow under the file's blob
 * SHA before Git gets it (so a later rotation finds it). `kept`: a payload held by a release before
 * 0.3.0 carries no data key, so it is published as it is, for the recipients it was encrypted for.
 */
export async function heldSecretFile({
  content,
  encryption,
  escrow,
}: {
  content: string;
  encryption: SopsEncryption;
  escrow: KeyEscrow;
}): Promise<{ file: string; outcome: SecretFileOutcome }> {
  const { document, wrappedDataKey } = splitHeldSecret(content);
  const dataKey = wrappedDataKey && unwrapDataKey(wrappedDataKey, encryption.derivationKey);
  if (!dataKey) return { file: document, outcome: 'kept' };
  return current(document, dataKey, encryption, escrow);
}

/**
 * A Secret file Git has, by its blob SHA, re-wrapped for the target's current recipients: undefined
 * when it already is (`unchanged`) or when the escrow has no data key for it (`kept`: written by
 * hand, or before 0.3.0; a resync of the Secret re-encrypts it).
 */
export async function publishedSecretFile({
  blobOid,
  encryption,
  escrow,
}: {
  blobOid: string;
  encryption: SopsEncryption;
  escrow: KeyEscrow;
}): Promise<{ file?: string; outcome: SecretFileOutcome }> {
  const stored = await escrow.get(blobOid);
  const record = stored === undefined ? undefined : readEscrowRecord(stored);
  const dataKey = record && unwrapDataKey(record.wrappedDataKey, encryption.derivationKey);
  if (!record || !dataKey) return { outcome: 'kept' };
  const { file, outcome } = await current(record.file, dataKey, encryption, escrow);
  return outcome === 'unchanged' ? { outcome } : { file, outcome };
}

async function current(
  document: string,
  dataKey: Buffer,
  encryption: SopsEncryption,
  escrow: KeyEscrow,
): Promise<{ file: string; outcome: SecretFileOutcome }> {
  const same = sameRecipients(sopsRecipients(document), encryption.recipients);
  const file = same ? document : rewrapSopsDocument({ document, dataKey, encryption });
  await escrow.put(blobOidOf(file), escrowRecord(file, wrapDataKey(dataKey, encryption.derivationKey)));
  return { file, outcome: same ? 'unchanged' : 'rewrapped' };
}

/** Whether a file is wrapped for exactly these recipients (in this order, as `.sops.yaml` lists them). */
export function sameRecipients(file: readonly string[], recipients: readonly string[]): boolean {
  return file.length === recipients.length && file.every((recipient, i) => recipient === recipients[i]);
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
