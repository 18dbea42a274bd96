/**
 * Secrets benchmark (`npm run bench -- secrets`): 1,000 Secrets taken from a watch body to the bytes
 * Git gets, against the baseline of 1,000 ConfigMaps of the same size, side by side in this run:
 *  - normalize: the watch body to files (the Secrets SOPS-encrypted for two age recipients);
 *  - to Git bytes: that, each file stored in the payload store (a local folder, flushed) and read
 *    back as a publication does, a Secret's data key then kept in the key escrow (flushed too).
 * Reported as ratios of the medians of several rounds; no wall time is asserted anywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFilePayloadStore } from '../../shared/payloads';
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
  const payloads = createFilePayloadStore({ folder: dir });
  const decoder = new TextDecoder();
  const times = {
    plainNormalize: [] as number[],
    secretNormalize: [] as number[],
    plain: [] as number[],
    secret: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    // each round new values, so no payload or escrow record of an earlier round is found stored
    let t0 = performance.now();
    const plain = normalizeWatchEvents({ body: body('ConfigMap', round), target: { path: 'c' } }).changes;
    times.plainNormalize.push(performance.now() - t0);
    for (const change of plain) decoder.decode(await payloads.get(await payloads.put(change.content!)));
    times.plain.push(performance.now() - t0);

    t0 = performance.now();
    const secrets = normalizeWatchEvents({
      body: body('Secret', round),
      target: { path: 'c', encryptSecret },
    }).changes;
    times.secretNormalize.push(performance.now() - t0);
    for (const change of secrets) {
      const held = decoder.decode(await payloads.get(await payloads.put(change.content!)));
      await heldSecretFile({ content: held, encryption, escrow });
    }
    times.secret.push(performance.now() - t0);
    if (secrets.length !== OBJECTS || plain.length !== OBJECTS)
      throw new Error(`expected ${OBJECTS} files, got ${secrets.length} and ${plain.length}`);
  }
  rmSync(dir, { recursive: true, force: true });
  const [pn, sn, p, s] = [times.plainNormalize, times.secretNormalize, times.plain, times.secret].map(median);
  console.log(`${OBJECTS} objects, medians over ${ROUNDS} rounds: ConfigMaps (baseline) / Secrets`);
  console.log(`normalize:     ${pn!.toFixed(0)} ms / ${sn!.toFixed(0)} ms, ratio ${(sn! / pn!).toFixed(1)}x`);
  console.log(`to Git bytes:  ${p!.toFixed(0)} ms / ${s!.toFixed(0)} ms, ratio ${(s! / p!).toFixed(1)}x`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
