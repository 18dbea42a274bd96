import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobOidOf } from '../../../shared/git/blob-oid';
import { createFileKeyEscrow } from '../../../shared/payloads/key-escrow-store';
import { splitHeldSecret, unwrapDataKey, wrapDataKey } from '../../../shared/secrets/key-escrow';
import {
  heldSecretFile,
  publishedSecretFile,
  secretEncryptor,
} from '../../../shared/secrets/secret-encryption';
import {
  encryptSopsDocument,
  rewrapSopsDocument,
  sopsRecipients,
} from '../../../shared/secrets/sops-document';
import { dataKeyWithAgeCli, newAgeIdentity, verifySopsDocument } from '../../support/secrets/sops-check';

const oldKey = newAgeIdentity();
const newKey = newAgeIdentity();
const derivationKey = createHmac('sha256', 'k'.repeat(40)).update('prod').digest();
const before = { recipients: [oldKey.recipient], derivationKey };
const after = { recipients: [newKey.recipient], derivationKey };
const PLAINTEXT =
  'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: shop\ndata:\n  password: czNjcjN0\n';
const encrypt = (encryption: typeof before) =>
  encryptSopsDocument({ plaintextYaml: PLAINTEXT, lastModified: '2025-01-01T00:00:00Z', encryption });
const object = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'shop', creationTimestamp: '2025-01-01T00:00:00Z' },
};
const escrowIn = () => createFileKeyEscrow({ folder: mkdtempSync(join(tmpdir(), 'ks-escrow-')) });

describe('re-wrapping a SOPS document for other recipients', () => {
  it('gives the very file a fresh encryption for them gives, which only the new key opens', () => {
    const { document, dataKey } = encrypt(before);
    const rewrapped = rewrapSopsDocument({ document, dataKey, encryption: after });
    expect(rewrapped).toBe(encrypt(after).document);
    expect(sopsRecipients(rewrapped)).toEqual([newKey.recipient]);
    expect(verifySopsDocument(rewrapped, dataKeyWithAgeCli(rewrapped, newKey)).data).toEqual({
      password: 'czNjcjN0',
    });
    expect(() => dataKeyWithAgeCli(rewrapped, oldKey)).toThrow('not encrypted for this recipient');
  });

  it('refuses a data key that is not the document’s', () => {
    const { document } = encrypt(before);
    expect(() => rewrapSopsDocument({ document, dataKey: Buffer.alloc(32, 1), encryption: after })).toThrow(
      'the data key is not this document’s',
    );
  });

  it('unwraps a kept data key only with the target’s own key', () => {
    const { dataKey } = encrypt(before);
    const wrapped = wrapDataKey(dataKey, derivationKey);
    expect(wrapped).not.toContain(dataKey.toString('base64'));
    expect(unwrapDataKey(wrapped, derivationKey)).toEqual(dataKey);
    expect(unwrapDataKey(wrapped, Buffer.alloc(32, 2))).toBeUndefined();
  });
});

describe('a Secret file published under a changed configuration', () => {
  it('re-wraps a held payload for the current recipients and keeps its data key for the next rotation', async () => {
    const escrow = escrowIn();
    const held = secretEncryptor(before)({ object, plaintextYaml: PLAINTEXT });
    expect(splitHeldSecret(held).wrappedDataKey).toBeDefined();
    const published = await heldSecretFile({ content: held, encryption: after, escrow });
    expect(published).toEqual({ file: encrypt(after).document, outcome: 'rewrapped' });

    const third = newAgeIdentity();
    const rotated = await publishedSecretFile({
      blobOid: blobOidOf(published.file),
      encryption: { recipients: [third.recipient], derivationKey },
      escrow,
    });
    expect(rotated.outcome).toBe('rewrapped');
    expect(verifySopsDocument(rotated.file!, dataKeyWithAgeCli(rotated.file!, third)).data).toEqual({
      password: 'czNjcjN0',
    });
  });

  it('publishes a payload held by 0.2.0 (no kept data key) as it is, and leaves an unknown file', async () => {
    const escrow = escrowIn();
    const { document } = encrypt(before);
    expect(await heldSecretFile({ content: document, encryption: after, escrow })).toEqual({
      file: document,
      outcome: 'kept',
    });
    expect(await publishedSecretFile({ blobOid: blobOidOf(document), encryption: after, escrow })).toEqual({
      outcome: 'kept',
    });
  });
});
