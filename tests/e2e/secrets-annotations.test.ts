// A Secret whose annotations carry its values (kapp keeps the whole object in
// `kapp.k14s.io/original`; any tool may keep a copy): the annotations are sealed with the data, so
// no value reaches Git, the data folder or the logs in clear, and the file still decrypts (age CLI,
// the SOPS rules, sops-age) to the annotations as posted.
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

const PASSWORD = 'annotation-copy-never-in-clear-91c2';
const NOTE = 'rotated-by-vault-token-s.3f9a77';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const PLAINTEXTS = [PASSWORD, b64(PASSWORD), NOTE, b64(NOTE)];
const FILE = 'clusters/prod/shop/secrets/api.sops.yaml';

const identity = newAgeIdentity();
let app: AppHost;
let remote: string;

const data = { token: b64(PASSWORD) };
// What kapp writes: the object it applied, values included (github.com/carvel-dev/kapp,
// pkg/kapp/diff/resource_with_historyless_original.go keeps it under this annotation).
const original = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'api', namespace: 'shop' },
  data,
});
const annotations = {
  'kapp.k14s.io/original': original,
  'example.com/rotation-note': NOTE,
};
const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'api',
    namespace: 'shop',
    labels: { app: 'api' },
    annotations,
    creationTimestamp: '2025-01-02T03:04:05Z',
  },
  type: 'Opaque',
  data,
};

type SopsAge = typeof import('sops-age', { with: { 'resolution-mode': 'import' }});
const sopsAge = jest.requireActual<SopsAge>('sops-age');

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-secret-notes-')), 'state.git'));
  const config = oneTargetConfig({
    url: remote,
    target: { encryption: { age: { recipients: [identity.recipient] }, keyEnv: 'KS_SOPS_KEY' } },
    limits: { pushCooldown: '0s' },
  });
  app = await startAppHost(config, { KS_SOPS_KEY: 'a-test-derivation-key-of-forty-characters' });
});

afterAll(async () => {
  await app?.stop();
});

describe('a Secret with its values in annotations', () => {
  it('is committed with every annotation value encrypted, and decrypts to the annotations as posted', async () => {
    const answer = await app.http('POST', '/api/v1/targets/prod/events', {
      events: [{ type: 'ADDED', resource: 'secrets', object: secret }],
    });
    expect(answer).toMatchObject({ status: 202, body: { accepted: 1 } });
    await app.advance(10_000);

    const file = await git(remote, 'show', `main:${FILE}`);
    const stored = parse(file) as { metadata: { annotations: Record<string, string>; labels: unknown } };
    // the keys stay readable (what a reviewer diffs), every value is sealed
    expect(Object.keys(stored.metadata.annotations).sort()).toEqual(Object.keys(annotations).sort());
    for (const value of Object.values(stored.metadata.annotations))
      expect(value).toMatch(/^ENC\[AES256_GCM,data:/);
    expect(stored.metadata.labels).toEqual({ app: 'api' });

    const plain = verifySopsDocument(file, dataKeyWithAgeCli(file, identity)) as {
      metadata: { annotations: unknown };
      data: unknown;
    };
    expect(plain.metadata.annotations).toEqual(annotations);
    expect(plain.data).toEqual(data);
    const decoded = (await sopsAge.decryptSops(file, {
      secretKey: identity.secretKey,
      fileType: 'yaml',
    })) as {
      metadata: { annotations: unknown };
    };
    expect(decoded.metadata.annotations).toEqual(annotations);

    // `sops edit` seals annotations as kubescribe does: the target's creation rules say so
    const rules = parse(await git(remote, 'show', 'main:clusters/prod/.sops.yaml'));
    expect(new RegExp(rules.creation_rules[0].encrypted_regex).test('annotations')).toBe(true);
  });

  it('left no annotation value, nor its base64, in the data folder, the Git objects or the logs', () => {
    const blobs: Buffer[] = [];
    const gitDirs = [remote];
    const visit = (path: string) => {
      for (const name of readdirSync(path)) {
        const child = join(path, name);
        if (statSync(child).isDirectory()) {
          if (name === 'objects' && statSync(join(path, 'HEAD'), { throwIfNoEntry: false }))
            gitDirs.push(path);
          visit(child);
        } else blobs.push(readFileSync(child));
      }
    };
    visit(app.dataDir);
    for (const dir of gitDirs)
      blobs.push(
        execFileSync('git', ['--git-dir', dir, 'cat-file', '--batch-all-objects', '--batch'], {
          maxBuffer: 256 * 1024 * 1024,
        }),
      );
    blobs.push(Buffer.from(JSON.stringify(app.logs)));
    expect(blobs.some((bytes) => bytes.includes('kapp.k14s.io/original'))).toBe(true);
    for (const value of PLAINTEXTS) expect(blobs.filter((bytes) => bytes.includes(value))).toHaveLength(0);
  });
});
