import { type LoadedConfig, loadConfig } from '../../../shared/config';
import { normalizeWatchEvents } from '../../../shared/resources';
import { isAgeRecipient } from '../../../shared/secrets/age-recipient';
import {
  secretEncryptor,
  secretLastModified,
  targetEncryption,
} from '../../../shared/secrets/secret-encryption';
import { dataKeyWithAgeCli, newAgeIdentity, verifySopsDocument } from '../../support/secrets/sops-check';

// As age-keygen printed them; the second differs from the first in its checksum only.
const RECIPIENT = 'age1v2lf76h3tf697maxj0ch5e032qykehnlllm2g28jn2rll2a4hdjsaa9c59';
const BAD_CHECKSUM = 'age1v2lf76h3tf697maxj0ch5e032qykehnlllm2g28jn2rll2a4hdjsaa9c5q';
const KEY = 'k'.repeat(40);

function load(encryption: unknown, env: Record<string, string> = { SOPS_KEY: KEY }): Promise<LoadedConfig> {
  const config = {
    repositories: [{ name: 'platform', url: 'https://git.example.com/org/state.git' }],
    targets: [{ name: 'prod', repository: 'platform', branch: 'main', encryption }],
  };
  return loadConfig({
    env: { ...env, KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config) },
    readFile: async () => '',
  });
}

const secret = (password: string, name = 'db') => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'shop', creationTimestamp: '2025-01-02T03:04:05Z' },
  data: { password: Buffer.from(password).toString('base64') },
});

function normalize(objects: object[], encryptSecret?: ReturnType<typeof secretEncryptor>) {
  return normalizeWatchEvents({
    body: { events: objects.map((object) => ({ type: 'ADDED', resource: 'secrets', object })) },
    target: { path: 'clusters/prod', ...(encryptSecret ? { encryptSecret } : {}) },
  });
}

describe('a target’s Secret encryption', () => {
  it('given age recipients and a key variable when loaded then the target encrypts and the key is redacted', async () => {
    const loaded = await load({ age: { recipients: [RECIPIENT] }, keyEnv: 'SOPS_KEY' });
    expect(loaded.config.targets[0]?.encryption).toEqual({
      age: { recipients: [RECIPIENT] },
      keyEnv: 'SOPS_KEY',
    });
    expect(JSON.stringify(loaded.secrets)).not.toContain(KEY);
  });

  it.each([
    ['a bad checksum', [BAD_CHECKSUM], 'targets[0].encryption.age.recipients[0] is not an age X25519'],
    [
      'an age secret key',
      ['AGE-SECRET-KEY-1QQQ'],
      'targets[0].encryption.age.recipients[0] is not an age X25519',
    ],
    ['no recipient', [], 'targets[0].encryption.age.recipients lists no age recipient'],
    [
      'a recipient twice',
      [RECIPIENT, RECIPIENT],
      'targets[0].encryption.age.recipients[1] lists a recipient twice',
    ],
  ])(
    'given %s when loaded then the target has a problem naming the field, and no key',
    async (_, recipients, problem) => {
      const loaded = await load({ age: { recipients }, keyEnv: 'SOPS_KEY' });
      expect(loaded.secrets.encryptionProblems?.prod).toContain(problem);
      expect(loaded.secrets.encryptionProblems?.prod).not.toContain('AGE-SECRET-KEY');
      expect(loaded.secrets.encryptionKeys?.prod).toBeUndefined();
    },
  );

  it('given the key variable unset or short when loaded then the target has a problem naming it, never a value', async () => {
    const encryption = { age: { recipients: [RECIPIENT] }, keyEnv: 'SOPS_KEY' };
    expect((await load(encryption, {})).secrets.encryptionProblems?.prod).toBe(
      'targets[0].encryption.keyEnv names the variable SOPS_KEY, which is not set',
    );
    const short = await load(encryption, { SOPS_KEY: 'short-key' });
    expect(short.secrets.encryptionProblems?.prod).toBe(
      'targets[0].encryption.keyEnv names a variable holding fewer than 32 characters',
    );
    expect(JSON.stringify(short.secrets)).not.toContain('short-key');
  });

  it('checks age recipients by their Bech32 checksum and length', () => {
    expect(isAgeRecipient(RECIPIENT)).toBe(true);
    expect(isAgeRecipient(BAD_CHECKSUM)).toBe(false);
    expect(isAgeRecipient(`${RECIPIENT}q`)).toBe(false);
    expect(isAgeRecipient(RECIPIENT.toUpperCase())).toBe(false);
  });
});

describe('a Secret normalized for a target', () => {
  const identity = newAgeIdentity();
  const encrypt = secretEncryptor(
    targetEncryption({ recipients: [identity.recipient], key: KEY, target: 'prod' }),
  );

  it('given no encryption then it is refused as before, naming the kind only', () => {
    const result = normalize([secret('p4ss-value')]);
    expect(result.changes).toEqual([]);
    expect(result.ignored[0]).toMatchObject({ reason: 'sensitive-resource' });
    expect(JSON.stringify(result)).not.toContain(Buffer.from('p4ss-value').toString('base64'));
  });

  it('given encryption then it becomes the same SOPS file every time, another for another value or key', () => {
    const [first, again, changed] = [secret('p4ss-value'), secret('p4ss-value'), secret('other-value')].map(
      (object) => normalize([object], encrypt).changes[0],
    );
    expect(first).toMatchObject({ path: 'clusters/prod/shop/secrets/db.sops.yaml', operation: 'upsert' });
    expect(again?.content).toBe(first?.content);
    expect(changed?.content).not.toBe(first?.content);
    const otherKey = secretEncryptor(
      targetEncryption({ recipients: [identity.recipient], key: `${KEY}x`, target: 'prod' }),
    );
    expect(normalize([secret('p4ss-value')], otherKey).changes[0]?.content).not.toBe(first?.content);
    const content = first?.content ?? '';
    expect(content).not.toContain(Buffer.from('p4ss-value').toString('base64'));
    expect(verifySopsDocument(content, dataKeyWithAgeCli(content, identity)).data).toEqual({
      password: Buffer.from('p4ss-value').toString('base64'),
    });
  });

  it('given an int64 beside the data then it stays digit for digit in the file and in the MAC', () => {
    // Not a field the apiserver keeps on a Secret, but a client may post one; its digits must survive.
    const withCounter = { ...secret('p4ss-value'), spec: { rotations: 9223372036854775807n } };
    const content = normalize([withCounter], encrypt).changes[0]?.content ?? '';
    expect(content).toContain('\nspec:\n  rotations: 9223372036854775807\n');
    expect(verifySopsDocument(content, dataKeyWithAgeCli(content, identity)).spec).toEqual({
      rotations: 9223372036854775807n,
    });
  });

  it('given encryption then a credential kind is still refused', () => {
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: { name: 'r' } };
    const result = normalizeWatchEvents({
      body: { events: [{ type: 'ADDED', resource: 'tokenreviews', object: review }] },
      target: { path: '.', encryptSecret: encrypt },
    });
    expect(result.changes).toEqual([]);
    expect(result.ignored[0]?.message).toBe('TokenReview carries credentials and is never recorded');
  });

  it('given a long name then the encrypted file name still fits 255 bytes', () => {
    const name = 'n'.repeat(250);
    const path = normalize([secret('v', name)], encrypt).changes[0]?.path ?? '';
    expect(Buffer.byteLength(path.split('/').at(-1) ?? '')).toBe(255);
    expect(path).toMatch(/~[0-9a-f]{32}\.sops\.yaml$/);
  });

  it('takes lastmodified from the latest managedFields time, else the creation time', () => {
    const metadata = {
      name: 'db',
      creationTimestamp: '2025-01-02T03:04:05Z',
      managedFields: [{ time: '2025-03-01T00:00:00Z' }, { time: '2025-02-01T00:00:00Z' }],
    };
    expect(secretLastModified({ apiVersion: 'v1', kind: 'Secret', metadata })).toBe('2025-03-01T00:00:00Z');
    expect(
      secretLastModified({ apiVersion: 'v1', kind: 'Secret', metadata: { ...metadata, managedFields: [] } }),
    ).toBe('2025-01-02T03:04:05Z');
  });
});
