// Secrets recorded SOPS-encrypted for age recipients, end to end on the embedded host: decrypted by
// the real age CLI and an independent SOPS decoder, never in plaintext in anything the host wrote.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { dataKeyWithAgeCli, newAgeIdentity, verifySopsDocument } from '../support/secrets/sops-check';
import { loadFixture } from '../unit/resources/load-fixture';

const PASSWORD = 'pl41ntext-never-at-rest-7f3a9c';
const AUDIT_PASSWORD = 'persisted-secret-never-store';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const PLAINTEXTS = [PASSWORD, b64(PASSWORD), AUDIT_PASSWORD, b64(AUDIT_PASSWORD)];
const FILE = 'clusters/prod/shop/secrets/db.sops.yaml';

const identity = newAgeIdentity();
const other = newAgeIdentity();
let app: AppHost;
let remote: string;

function secret(password: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'db',
      namespace: 'shop',
      labels: { app: 'db' },
      creationTimestamp: '2025-01-02T03:04:05Z',
      managedFields: [{ manager: 'kubectl', operation: 'Update', time: '2025-02-03T04:05:06Z' }],
    },
    type: 'Opaque',
    data: { password: b64(password), username: b64('admin') },
  };
}

type SopsAge = typeof import('sops-age', { with: { 'resolution-mode': 'import' }});
// Jest runs CommonJS: sops-age's CommonJS build, typed as its ES module.
const sopsAge = jest.requireActual<SopsAge>('sops-age');
const decryptSops = (file: string, secretKey: string): Promise<{ data?: unknown }> =>
  sopsAge.decryptSops(file, { secretKey, fileType: 'yaml' });

const postEvent = (type: string, object: unknown) =>
  app.http('POST', '/api/v1/targets/prod/events', { events: [{ type, resource: 'secrets', object }] });
const head = async () => (await git(remote, 'rev-parse', 'main')).trim();

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-secrets-')), 'state.git'));
  const config = oneTargetConfig({
    url: remote,
    target: {
      prune: 'Always',
      encryption: { age: { recipients: [identity.recipient, other.recipient] }, keyEnv: 'KS_SOPS_KEY' },
    },
    limits: { pushCooldown: '0s' },
  }) as { targets: object[] };
  // a second target whose recipient has a typo: it must not stop the app, nor ever write a Secret.
  // Its last character replaced by another (one generated key in 32 already ends in `q`); bech32's
  // checksum catches any one character changed
  const last = identity.recipient.at(-1) === 'q' ? 'p' : 'q';
  config.targets.push({
    name: 'typo',
    repository: 'state',
    branch: 'main',
    path: 'clusters/typo',
    encryption: { age: { recipients: [`${identity.recipient.slice(0, -1)}${last}`] }, keyEnv: 'KS_SOPS_KEY' },
  });
  app = await startAppHost(config, { KS_SOPS_KEY: 'a-test-derivation-key-of-forty-characters' });
});

afterAll(async () => {
  await app?.stop();
});

describe('Secrets on a target with age recipients', () => {
  it('records a watched Secret as a SOPS file that age, sops-age and the SOPS MAC rules decrypt back', async () => {
    expect(await postEvent('ADDED', secret(PASSWORD))).toMatchObject({ status: 202, body: { accepted: 1 } });
    await app.advance(10_000);
    const file = await git(remote, 'show', `main:${FILE}`);
    expect(file).toMatch(/^apiVersion: v1\nkind: Secret\nmetadata:\n {2}name: db\n {2}namespace: shop\n/);
    expect(file).toContain('password: "ENC[AES256_GCM,data:');
    expect(file).toContain('type: Opaque');

    for (const who of [identity, other]) {
      const plain = verifySopsDocument(file, dataKeyWithAgeCli(file, who));
      expect(plain.data).toEqual({ password: b64(PASSWORD), username: b64('admin') });
    }
    const decoded = await decryptSops(file, identity.secretKey);
    expect(decoded.data).toEqual({ password: b64(PASSWORD), username: b64('admin') });

    const rules = parse(await git(remote, 'show', 'main:clusters/prod/.sops.yaml'));
    expect(rules).toEqual({
      creation_rules: [
        {
          path_regex: '(^|/)secrets/[^/]+\\.sops\\.yaml$',
          encrypted_regex: '^(data|stringData|annotations)$',
          age: `${identity.recipient},${other.recipient}`,
        },
      ],
    });
  });

  it('makes no commit for an unchanged Secret posted 100 times or resynced, and one for a changed value', async () => {
    const before = await head();
    for (let i = 0; i < 100; i++) {
      expect((await postEvent('MODIFIED', secret(PASSWORD))).status).toBe(202);
      if (i % 20 === 19) await app.advance(2000);
    }
    const resync = await app.http('POST', '/api/v1/targets/prod/snapshots', {
      scope: { group: '', resource: 'secrets', namespace: 'shop' },
      revision: '42',
      objects: [secret(PASSWORD)],
    });
    expect(resync).toMatchObject({ status: 202, body: { accepted: 1 } });
    await app.advance(10_000);
    expect(await head()).toBe(before);

    await postEvent('MODIFIED', secret('another-value-entirely'));
    await app.advance(10_000);
    expect(await git(remote, 'rev-list', '--count', `${before}..main`)).toBe('1\n');
    const file = await git(remote, 'show', `main:${FILE}`);
    expect(verifySopsDocument(file, dataKeyWithAgeCli(file, identity)).data).toMatchObject({
      password: b64('another-value-entirely'),
    });
  });

  it('counts encryptions and unchanged skips in the target status', async () => {
    const { body } = await app.http('GET', '/api/v1/targets/prod');
    expect(body.encryption).toEqual({
      recipients: 2,
      ready: true,
      // the first post, 100 repeats, the resync, the changed value; every repeat encrypted to the same file
      counts: { attempts: 103, failures: 0, unchangedSkips: 101, rewrapped: 0, kept: 0 },
    });
    expect(body.conditions.map((condition: { type: string }) => condition.type)).not.toContain(
      'EncryptionReady',
    );
  });

  it('refuses Secrets on a target whose recipient is wrong, saying why in its status and answer', async () => {
    const { body } = await app.http('GET', '/api/v1/targets/typo');
    expect(body.encryption).toMatchObject({ ready: false, counts: { attempts: 0 } });
    expect(body.conditions).toContainEqual({
      type: 'EncryptionReady',
      status: 'False',
      reason: 'EncryptionMisconfigured',
      message:
        'Secrets are refused: targets[1].encryption.age.recipients[0] is not an age X25519 public key ("age1…", 62 characters, as age-keygen prints it)',
      lastTransitionTime: expect.any(String),
    });
    const before = await head();
    const answer = await app.http('POST', '/api/v1/targets/typo/events', {
      events: [{ type: 'ADDED', resource: 'secrets', object: secret(PASSWORD) }],
    });
    expect(answer).toMatchObject({
      status: 202,
      body: {
        accepted: 0,
        ignored: 1,
        ignoredReasons: [
          {
            reason: 'sensitive-resource',
            message: expect.stringMatching(
              /^Secret is not recorded: the target's encryption is misconfigured \(targets\[1\]/,
            ),
          },
        ],
      },
    });
    await app.advance(10_000);
    expect(await head()).toBe(before);
  });

  it('records a Secret from the audit webhook, encrypted', async () => {
    const answer = await app.http(
      'POST',
      '/api/v1/targets/prod/audit',
      loadFixture('audit/secret-persisted-patch.yaml'),
    );
    expect(answer).toMatchObject({ status: 200, body: { accepted: 1, ignored: 0 } });
    await app.advance(10_000);
    const file = await git(remote, 'show', 'main:clusters/prod/shop/secrets/db-credentials.sops.yaml');
    const decoded = await decryptSops(file, identity.secretKey);
    expect(decoded.data).toEqual({ password: b64(AUDIT_PASSWORD) });
    verifySopsDocument(file, dataKeyWithAgeCli(file, identity));
  });

  it('answers an AdmissionReview of a Secret without recording it: admission registers only CommitRequest saves', async () => {
    const before = await head();
    const review = await app.http('POST', '/api/v1/admission', {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'b1f3e3c4-0000-4000-8000-000000000001',
        kind: { group: '', version: 'v1', kind: 'Secret' },
        resource: { group: '', version: 'v1', resource: 'secrets' },
        name: 'admitted',
        namespace: 'shop',
        operation: 'CREATE',
        userInfo: { username: 'alice' },
        object: { ...secret(PASSWORD), metadata: { name: 'admitted', namespace: 'shop' } },
      },
    });
    expect(review).toMatchObject({ status: 200, body: { response: { allowed: true } } });
    await app.advance(10_000);
    expect(await head()).toBe(before);
  });

  it('removes the Secret file on delete and by a snapshot sweep, keeping .sops.yaml', async () => {
    await postEvent('DELETED', secret(PASSWORD));
    await app.advance(10_000);
    const sweep = await app.http('POST', '/api/v1/targets/prod/snapshots', {
      scope: { group: '', resource: 'secrets' },
      revision: '43',
      objects: [],
    });
    expect(sweep.status).toBe(202);
    await app.advance(10_000);
    const files = await git(remote, 'ls-tree', '-r', '--name-only', 'main');
    expect(files).not.toContain('db.sops.yaml');
    expect(files).not.toContain('db-credentials.sops.yaml');
    expect(files).toContain('clusters/prod/.sops.yaml');
  });

  it('wrote no plaintext value, nor its base64, to any byte of the data folder, the Git objects or the logs', async () => {
    const blobs: Buffer[] = [];
    const scanned: string[] = [];
    // A local remote is written in place (no object cache); any Git folder the host keeps is read too.
    const gitDirs = [remote];
    const visit = (path: string) => {
      for (const name of readdirSync(path)) {
        const child = join(path, name);
        if (statSync(child).isDirectory()) {
          if (name === 'objects' && statSync(join(path, 'HEAD'), { throwIfNoEntry: false }))
            gitDirs.push(path);
          visit(child);
        } else {
          scanned.push(child);
          blobs.push(readFileSync(child));
        }
      }
    };
    visit(app.dataDir);
    for (const dir of gitDirs) {
      blobs.push(
        execFileSync('git', ['--git-dir', dir, 'cat-file', '--batch-all-objects', '--batch'], {
          maxBuffer: 256 * 1024 * 1024,
        }),
      );
    }
    blobs.push(Buffer.from(JSON.stringify(app.logs)));
    expect(scanned.some((path) => path.endsWith('host.sqlite'))).toBe(true);
    expect(scanned.some((path) => /payloads\/sha256\//.test(path))).toBe(true);
    expect(blobs.some((bytes) => bytes.includes('ENC[AES256_GCM'))).toBe(true);
    for (const value of PLAINTEXTS) {
      expect(blobs.filter((bytes) => bytes.includes(value)).length).toBe(0);
    }
  });
});
