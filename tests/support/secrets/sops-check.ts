import { execFileSync } from 'node:child_process';
import { createDecipheriv, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

/** A test age identity made by the real `age-keygen`. Fails with the fix when the CLI is missing. */
export function newAgeIdentity(): { secretKey: string; recipient: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ks-age-'));
  const file = join(dir, 'key.txt');
  try {
    execFileSync('age-keygen', ['-o', file], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(
      `the age CLI is required by this test and could not run (${(error as Error).message}): install it with "apt-get install -y age" (.ci/run does)`,
    );
  }
  const text = readFileSync(file, 'utf8');
  const recipient = /# public key: (age1[0-9a-z]+)/.exec(text)?.[1];
  const secretKey = /^(AGE-SECRET-KEY-1[0-9A-Z]+)$/m.exec(text)?.[1];
  if (!recipient || !secretKey) throw new Error('age-keygen wrote no key');
  return { secretKey, recipient, file };
}

/** The data key of a SOPS document, unwrapped by the real `age` CLI for the recipient of `identity`. */
export function dataKeyWithAgeCli(document: string, identity: { recipient: string; file: string }): Buffer {
  const sops = (parse(document) as { sops: { age: { recipient: string; enc: string }[] } }).sops;
  const stanza = sops.age.find((entry) => entry.recipient === identity.recipient);
  if (!stanza) throw new Error('the document is not encrypted for this recipient');
  const dir = mkdtempSync(join(tmpdir(), 'ks-age-'));
  writeFileSync(join(dir, 'key.age'), stanza.enc);
  return execFileSync('age', ['--decrypt', '-i', identity.file, join(dir, 'key.age')]);
}

function decryptValue(value: string, key: Buffer, additionalData: string): string {
  const match = /^ENC\[AES256_GCM,data:([^,]*),iv:([^,]+),tag:([^,]+),type:(\w+)\]$/.exec(value);
  if (!match) throw new Error(`not a SOPS value: ${value.slice(0, 20)}`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(match[2]!, 'base64'));
  decipher.setAAD(Buffer.from(additionalData));
  decipher.setAuthTag(Buffer.from(match[3]!, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(match[1]!, 'base64')), decipher.final()]).toString();
}

/**
 * Verifies a SOPS document as `sops decrypt` does, written from the SOPS specification and apart
 * from kubescribe's encoder: every `ENC[…]` value decrypts with its key path (`a:b:`) as additional
 * data, and the MAC (SHA-512 over every value in file order, uppercase hex) decrypts with
 * `lastmodified` as additional data and equals the one computed. Returns the decrypted tree.
 */
export function verifySopsDocument(document: string, dataKey: Buffer): Record<string, unknown> {
  // Integers exact, as sops reads them (go-yaml decodes an int64 into an int, `ToBytes` writes its digits).
  const tree = parse(document, { mapAsMap: true, intAsBigInt: true }) as Map<string, unknown>;
  const sops = tree.get('sops') as Map<string, unknown>;
  tree.delete('sops');
  const regex = new RegExp(String(sops.get('encrypted_regex')));
  const hash = createHash('sha512');
  const walk = (node: unknown, path: string[]): unknown => {
    if (node instanceof Map) {
      return Object.fromEntries([...node].map(([k, v]) => [k, walk(v, [...path, String(k)])]));
    }
    if (Array.isArray(node)) return node.map((item) => walk(item, path));
    if (node === null) return null;
    const encrypted = path.some((segment) => regex.test(segment)) && node !== '';
    const plain = encrypted ? decryptValue(String(node), dataKey, `${path.join(':')}:`) : node;
    hash.update(typeof plain === 'boolean' ? (plain ? 'True' : 'False') : String(plain));
    return plain;
  };
  const plain = walk(tree, []) as Record<string, unknown>;
  const mac = decryptValue(String(sops.get('mac')), dataKey, String(sops.get('lastmodified')));
  if (mac !== hash.digest('hex').toUpperCase()) throw new Error('the SOPS MAC does not verify');
  return plain;
}
