/**
 * Secrets benchmark (`npm run bench -- secrets`): 1,000 Secrets taken from a watch body to the bytes
 * Git gets — normalized, SOPS-encrypted for two age recipients with their data keys wrapped, then
 * each file's data key kept in the key escrow (a local folder) as a publication does — against the
 * baseline of 1,000 ConfigMaps of the same size normalized to plain YAML, side by side in this run.
 * Reported as the ratio of the medians of several rounds; no wall time is asserted anywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileKeyEscrow } from '../../shared/payloads/key-escrow-store';
import { normalizeWatchEvents } from '../../shared/resources';
import { heldSecretFile, secretEncryptor, targetEncryption } from '../../shared/secrets/secret-encryption';

const OBJECTS = Number(process.env.SECRETS_OBJECTS ?? 1000);
const ROUNDS = Number(process.env.SECRETS_ROUNDS ?? 5);
// Two recipients as age-keygen printed them (public keys only: nothing here decrypts).
const RECIPIENTS = [
  'age1v2lf76h3tf697maxj0ch5e032qykehnlllm2g28jn2rll2a4hdjsaa9c59',
  'age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p',
];

function object(kind: 'Secret' | 'ConfigMap', index: number, round: number) {
  const value = `value-${round}-${index}-${'x'.repeat(256)}`;
  return {
    apiVersion: 'v1',
    kind,
    metadata: { name: `obj-${index}`, namespace: 'bench', creationTimestamp: '2025-01-01T00:00:00Z' },
    data: { value: kind === 'Secret' ? Buffer.from(value).toString('base64') : value },
  };
}

const body = (kind: 'Secret' | 'ConfigMap', round: number) => ({
  events: Array.from({ length: OBJECTS }, (_, index) => ({
    type: 'ADDED',
    resource: kind === 'Secret' ? 'secrets' : 'configmaps',
    object: object(kind, index, round),
  })),
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ks-bench-secrets-'));
  const encryption = targetEncryption({ recipients: RECIPIENTS, key: 'k'.repeat(44), target: 'bench' });
  const encryptSecret = secretEncryptor(encryption);
  const escrow = createFileKeyEscrow({ folder: dir });
  const plain: number[] = [];
  const encrypted: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // each round new values, so nothing is served from an earlier round's escrow records
    const configMaps = body('ConfigMap', round);
    const secrets = body('Secret', round);
    let t0 = performance.now();
    const plainChanges = normalizeWatchEvents({ body: configMaps, target: { path: 'c' } }).changes;
    plain.push(performance.now() - t0);

    t0 = performance.now();
    const changes = normalizeWatchEvents({ body: secrets, target: { path: 'c', encryptSecret } }).changes;
    for (const change of changes) await heldSecretFile({ content: change.content!, encryption, escrow });
    encrypted.push(performance.now() - t0);
    if (changes.length !== OBJECTS || plainChanges.length !== OBJECTS)
      throw new Error(`expected ${OBJECTS} files, got ${changes.length} and ${plainChanges.length}`);
  }
  rmSync(dir, { recursive: true, force: true });
  const [p, e] = [median(plain), median(encrypted)];
  console.log(`${OBJECTS} ConfigMaps normalized (baseline): median ${p.toFixed(0)} ms over ${ROUNDS} rounds`);
  console.log(`${OBJECTS} Secrets normalized, encrypted, data keys kept: median ${e.toFixed(0)} ms`);
  console.log(`ratio encrypted / plain: ${(e / p).toFixed(2)}x`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
