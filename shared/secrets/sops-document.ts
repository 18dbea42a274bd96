import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';
import { parse } from 'yaml';
import { renderYaml } from '../resources/render-yaml';
import { ageEncryptArmored } from './age-wrap';

/**
 * The fields encrypted: where a Secret keeps its values, and its annotations, where tools keep
 * copies of the whole object (`kapp.k14s.io/original`, `kubectl.kubernetes.io/last-applied-configuration`
 * and any other): sealed with the data rather than dropped, so the file decrypts to the Secret as
 * the cluster had it. The rest (kind, name, namespace, labels, type) stays readable.
 */
export const SOPS_ENCRYPTED_REGEX = '^(data|stringData|annotations)$';
/** The SOPS format version written; files of this layout are read by sops 3.x and Flux. */
export const SOPS_VERSION = '3.9.4';

const ENCRYPTED = new RegExp(SOPS_ENCRYPTED_REGEX);

/** What encrypts a target's Secrets: its age recipients and its secret derivation key. */
export type SopsEncryption = {
  recipients: readonly string[];
  /**
   * Keys every derivation (data key, IVs, age ephemerals): the same plaintext and recipients give
   * the same file, and without this key nobody can test a guess of a value against the file.
   */
  derivationKey: Buffer;
};

type Tree = Map<unknown, unknown> | unknown[] | string | number | bigint | boolean | null;

/**
 * Encrypts a Secret rendered as deterministic YAML into a SOPS document (YAML store), as the
 * `sops` CLI writes it with `encrypted_regex: ^(data|stringData|annotations)$` and age recipients: each
 * value under `data`/`stringData`/`metadata.annotations` becomes `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]` (a 32-byte IV, the
 * additional data the value's key path joined by `:` plus a trailing `:`), everything else stays
 * readable, the 32-byte data key is wrapped for each recipient, and `mac` is the SHA-512 of every
 * value in document order, uppercase hex, encrypted with `lastmodified` as additional data.
 * Deterministic: the data key and the IVs derive from the derivation key, `lastModified` and the
 * plaintext, and each age stanza from the derivation key, the data key and its recipient, so an
 * unchanged Secret gives the same bytes, and re-wrapping its data key for other recipients
 * (`rewrapSopsDocument`) gives the very file a fresh encryption for them would.
 * @param plaintextYaml the sanitized Secret as `renderYaml` rendered it (kept in memory only).
 * @param lastModified RFC 3339 in UTC without fractions (sops re-formats it so for the MAC).
 */
export function encryptSopsDocument({
  plaintextYaml,
  lastModified,
  encryption,
}: {
  plaintextYaml: string;
  lastModified: string;
  encryption: SopsEncryption;
}): { document: string; dataKey: Buffer } {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(lastModified)) {
    throw new TypeError('encryptSopsDocument: lastModified must be RFC 3339 in UTC without fractions');
  }
  const seed = createHmac('sha256', encryption.derivationKey)
    .update(`kubescribe sops v2\0${lastModified}\0${plaintextYaml}`)
    .digest();
  const derive = (label: string) => createHmac('sha256', seed).update(label).digest();
  const dataKey = derive('data key');
  const mac = createHash('sha512');
  let counter = 0;
  const encryptValue = (value: string | number | bigint | boolean, additionalData: string) =>
    encryptScalar(value, dataKey, derive(`iv\0${counter++}\0${additionalData}`), additionalData);

  // The order sops walks is the file's order: read the rendered YAML back rather than re-deriving it.
  const walk = (node: Tree, path: readonly string[]): Tree => {
    if (node instanceof Map) {
      const out = new Map<unknown, unknown>();
      for (const [key, value] of node) out.set(key, walk(value as Tree, [...path, String(key)]));
      return out;
    }
    if (Array.isArray(node)) return node.map((item) => walk(item as Tree, path));
    if (node === null) return null;
    mac.update(sopsBytes(node));
    if (!path.some((segment) => ENCRYPTED.test(segment))) return node;
    return encryptValue(node, `${path.join(':')}:`);
  };
  // Integers as bigints: an int64 outside `data` stays digit for digit, in the file and in the MAC.
  const encrypted = walk(parse(plaintextYaml, { mapAsMap: true, intAsBigInt: true }) as Tree, []);
  if (!(encrypted instanceof Map)) throw new TypeError('encryptSopsDocument: the document is not a map');

  const sops = {
    age: ageStanzas(dataKey, encryption),
    lastmodified: lastModified,
    mac: encryptScalar(mac.digest('hex').toUpperCase(), dataKey, derive('mac iv'), lastModified),
    encrypted_regex: SOPS_ENCRYPTED_REGEX,
    version: SOPS_VERSION,
  };
  return {
    document: renderYaml(toPlain(encrypted) as Record<string, unknown>) + renderYaml({ sops }),
    dataKey,
  };
}

/** The data key wrapped for each recipient; the stanza's randomness derives from the data key alone. */
function ageStanzas(dataKey: Buffer, encryption: SopsEncryption): { recipient: string; enc: string }[] {
  const seed = createHmac('sha256', encryption.derivationKey)
    .update('age stanzas\0')
    .update(dataKey)
    .digest();
  return encryption.recipients.map((recipient) => ({
    recipient,
    enc: ageEncryptArmored({ recipient, plaintext: dataKey, seed }),
  }));
}

/** The age recipients a SOPS document's data key is wrapped for, in file order. */
export function sopsRecipients(document: string): string[] {
  const block = sopsBlock(document);
  const age = (block?.metadata as { age?: { recipient?: unknown }[] } | undefined)?.age ?? [];
  return age.map((stanza) => String(stanza.recipient));
}

/**
 * The same SOPS document with its data key wrapped for other recipients, as `sops updatekeys`
 * does: every encrypted value, the MAC and `lastmodified` stay as they are. `dataKey` must be the
 * document's (checked against its MAC, whose authentication tag fails under any other key).
 */
export function rewrapSopsDocument({
  document,
  dataKey,
  encryption,
}: {
  document: string;
  dataKey: Buffer;
  encryption: SopsEncryption;
}): string {
  const block = sopsBlock(document);
  if (!block) throw new TypeError('rewrapSopsDocument: not a SOPS document kubescribe wrote');
  const metadata = block.metadata;
  if (!decryptsMac(String(metadata.mac), dataKey, String(metadata.lastmodified)))
    throw new TypeError('rewrapSopsDocument: the data key is not this document’s');
  return block.body + renderYaml({ sops: { ...metadata, age: ageStanzas(dataKey, encryption) } });
}

function sopsBlock(document: string): { body: string; metadata: Record<string, unknown> } | undefined {
  // The metadata block kubescribe writes last, at the top level of the document.
  const at = document.startsWith('sops:\n') ? 0 : document.lastIndexOf('\nsops:\n') + 1;
  if (at === 0 && !document.startsWith('sops:\n')) return undefined;
  const parsed = parse(document.slice(at)) as { sops?: unknown } | null;
  if (typeof parsed?.sops !== 'object' || parsed.sops === null) return undefined;
  return { body: document.slice(0, at), metadata: parsed.sops as Record<string, unknown> };
}

function decryptsMac(value: string, key: Buffer, additionalData: string): boolean {
  const match = /^ENC\[AES256_GCM,data:([^,]*),iv:([^,]+),tag:([^,]+),type:str\]$/.exec(value);
  if (!match) return false;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(match[2]!, 'base64'));
    decipher.setAAD(Buffer.from(additionalData));
    decipher.setAuthTag(Buffer.from(match[3]!, 'base64'));
    decipher.update(Buffer.from(match[1]!, 'base64'));
    decipher.final();
    return true;
  } catch {
    return false;
  }
}

/** A value's bytes as sops hashes and encrypts them (`ToBytes`: booleans as Python wrote them). */
function sopsBytes(value: string | number | bigint | boolean): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}

function sopsType(value: string | number | bigint | boolean): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'bigint' || Number.isInteger(value) ? 'int' : 'float';
}

function encryptScalar(
  value: string | number | bigint | boolean,
  key: Buffer,
  iv: Buffer,
  additionalData: string,
): string {
  const plaintext = sopsBytes(value);
  // sops leaves an empty string as it is: there is nothing to hide.
  if (plaintext === '') return '';
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(additionalData));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  return `ENC[AES256_GCM,data:${b64(data)},iv:${b64(iv)},tag:${b64(cipher.getAuthTag())},type:${sopsType(value)}]`;
}

function toPlain(node: unknown): unknown {
  if (node instanceof Map)
    return Object.fromEntries([...node].map(([key, value]) => [String(key), toPlain(value)]));
  if (Array.isArray(node)) return node.map(toPlain);
  return node;
}
