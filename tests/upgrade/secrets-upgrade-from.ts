// The Secrets upgrade test of one release: the current code starts on the data folder that release
// left with a Secret held for an encrypted target (tests/fixtures/upgrade/<version>-secrets, made by
// `generate-fixture.sh <version> <commit> secrets`) and, when Git returns, publishes it once:
// decryptable with the fixture's age identity, the held data-key line never in Git, and no
// plaintext in Git, the data folder or the logs. What differs between releases is `expected`.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { dataKeyWithAgeCli, verifySopsDocument } from '../support/secrets/sops-check';
import {
  AGE_IDENTITY_FILE,
  DERIVATION_KEY,
  encryptedTarget,
  KEY_ENV,
  PLAINTEXTS,
  SECRET_DATA,
  SECRET_FILE,
  secretsFixture,
} from './secrets-scenario';
import { UPGRADE_FIXTURES } from './upgrade-from';
import { upgradeRemote } from './upgrade-scenario';

export interface SecretsUpgradeExpectations {
  /** Whether the release kept the Secret's wrapped data key on a comment line of the held payload. */
  heldDataKey: boolean;
  /** The commit that writes the file: `<author>|<subject>`. */
  commit: string;
  /** The target's `encryption.counts` afterwards, and what the log says of a file kept as it was held. */
  counts: { kept: number; rewrapped: number };
  keptLog?: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

export function secretsUpgradeFrom(release: string, expected: SecretsUpgradeExpectations): void {
  const fixture = join(UPGRADE_FIXTURES, secretsFixture(release));
  const remote = upgradeRemote(secretsFixture(release));
  const identityFile = join(fixture, AGE_IDENTITY_FILE);
  let app: AppHost | undefined;

  afterAll(async () => {
    await app?.stop();
    rmSync(remote, { recursive: true, force: true });
  });

  it(`publishes a Secret ${release} held once: decryptable, its held data key never in Git, never plaintext`, async () => {
    const recipient = /# public key: (age1[0-9a-z]+)/.exec(readFileSync(identityFile, 'utf8'))![1]!;
    const dataDir = mkdtempSync(join(tmpdir(), `kubescribe-upgrade-${release}-secrets-`));
    // The age identity stands for the operator's private key: it is not part of the data folder.
    cpSync(fixture, dataDir, { recursive: true, filter: (path) => path !== identityFile });
    const [held] = filesUnder(join(dataDir, 'payloads', 'sha256'));
    const heldBytes = readFileSync(held!);
    expect(heldBytes.includes('kubescribe-data-key')).toBe(expected.heldDataKey);

    rmSync(remote, { recursive: true, force: true });
    await createBareRepository(remote);
    app = await startAppHost(
      oneTargetConfig({ url: remote, target: encryptedTarget(recipient) }),
      { [KEY_ENV]: DERIVATION_KEY },
      { dataDir },
    );
    // The held write retries on its schedule (at most 5 min apart).
    await app.advance(6 * 60 * 1000);

    // One commit writes the file: nothing re-encrypted it for other recipients.
    const history = await git(remote, 'log', '--format=%an|%s', 'main', '--', SECRET_FILE);
    expect(history.trim().split('\n')).toEqual([expected.commit]);
    const file = await git(remote, 'show', `main:${SECRET_FILE}`);
    // Published as it was held: the same SOPS document, for the recipient it was encrypted for.
    expect(heldBytes.includes(file)).toBe(true);
    expect(file).not.toContain('kubescribe-data-key');
    const plain = verifySopsDocument(file, dataKeyWithAgeCli(file, { recipient, file: identityFile }));
    expect(plain.data).toEqual(SECRET_DATA);

    const status = (await app.http('GET', '/api/v1/targets/prod')).body;
    expect(status.publication).toMatchObject({ pendingWrites: 0, retryAt: null });
    expect(status.encryption.counts).toMatchObject(expected.counts);
    if (expected.keptLog) expect(JSON.stringify(app.logs)).toContain(expected.keptLog);

    const objects = await git(remote, 'cat-file', '--batch-all-objects', '--batch');
    const written = [
      objects,
      JSON.stringify(app.logs),
      ...filesUnder(dataDir).map((path) => readFileSync(path, 'latin1')),
    ];
    for (const text of written) for (const plaintext of PLAINTEXTS) expect(text).not.toContain(plaintext);
  });
}
