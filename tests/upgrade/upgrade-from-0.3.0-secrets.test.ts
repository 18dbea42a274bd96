// 0.3.0 held Secret payloads with their data key wrapped on a `# kubescribe-data-key: v1 …` comment
// line (docs/secrets.md, "Rotating recipients"). The current code starts on the data folder 0.3.0 left
// with a Secret held for an encrypted target (tests/fixtures/upgrade/0.3.0-secrets, made by
// `generate-fixture.sh 0.3.0 d0e18c0 secrets`) and, when Git returns, publishes it once: the kept
// key's line never reaches Git, the file decrypts with the target's identity, and no plaintext is in
// Git, the data folder or the logs.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

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

const fixture = join(UPGRADE_FIXTURES, secretsFixture('0.3.0'));
const remote = upgradeRemote(secretsFixture('0.3.0'));
const identityFile = join(fixture, AGE_IDENTITY_FILE);
const recipient = /# public key: (age1[0-9a-z]+)/.exec(readFileSync(identityFile, 'utf8'))![1]!;
const identity = { recipient, file: identityFile };
let app: AppHost | undefined;
let dataDir: string;

afterAll(async () => {
  await app?.stop();
  rmSync(remote, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

it('publishes a Secret 0.3.0 held once: decryptable, its kept data key never in Git, never plaintext', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-upgrade-0.3.0-secrets-'));
  // The age identity stands for the operator's private key: it is not part of the data folder.
  cpSync(fixture, dataDir, { recursive: true, filter: (path) => path !== identityFile });
  const [held] = filesUnder(join(dataDir, 'payloads', 'sha256'));
  const heldBytes = readFileSync(held!);
  expect(heldBytes.includes('kubescribe-data-key')).toBe(true);

  rmSync(remote, { recursive: true, force: true });
  await createBareRepository(remote);
  app = await startAppHost(
    oneTargetConfig({ url: remote, target: encryptedTarget(recipient) }),
    { [KEY_ENV]: DERIVATION_KEY },
    { dataDir },
  );
  // The held write retries on its schedule (at most 5 min apart).
  await app.advance(6 * 60 * 1000);

  // One commit, erin's, creates the file.
  const history = await git(remote, 'log', '--format=%an|%s', 'main', '--', SECRET_FILE);
  expect(history.trim().split('\n')).toEqual(['erin|[CREATE] v1/secrets shop/db']);
  const file = await git(remote, 'show', `main:${SECRET_FILE}`);
  expect(file).not.toContain('kubescribe-data-key');
  const plain = verifySopsDocument(file, dataKeyWithAgeCli(file, identity));
  expect(plain.data).toEqual(SECRET_DATA);

  const status = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(status.publication).toMatchObject({ pendingWrites: 0, retryAt: null });
  // Its recipients did not change, so the held data key serves as it is: nothing kept, nothing re-wrapped.
  expect(status.encryption.counts).toMatchObject({ kept: 0, rewrapped: 0 });

  const objects = await git(remote, 'cat-file', '--batch-all-objects', '--batch');
  const written = [
    objects,
    JSON.stringify(app.logs),
    ...filesUnder(dataDir).map((path) => readFileSync(path, 'latin1')),
  ];
  for (const text of written) for (const plaintext of PLAINTEXTS) expect(text).not.toContain(plaintext);
});
