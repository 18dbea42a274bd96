// The seed's fault row "sensitive backlog across key rotation", end to end on the embedded host: Git
// is down while Secrets change, the target's recipients change (a restart with the new
// configuration), Git returns. Every Secret file then decrypts with the new key only, in one
// rotation commit plus the backlog's own commits, and nothing the host wrote holds a plaintext.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import type { FaultProxy } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';
import { dataKeyWithAgeCli, newAgeIdentity, verifySopsDocument } from '../support/secrets/sops-check';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const oldKey = newAgeIdentity();
const newKey = newAgeIdentity();
const VALUES = { db: 'db-before-outage-4c1f', api: 'api-unchanged-9b7e', cache: 'cache-held-2d8a' };
const CHANGED_DB = 'db-changed-during-outage-5e0c';

let app: AppHost;
let served: ProxiedRemote;
let proxy: FaultProxy;
let remote: string;

const config = (recipients: string[]) =>
  oneTargetConfig({
    url: `${proxy.url}/state.git`,
    target: { encryption: { age: { recipients }, keyEnv: 'KS_SOPS_KEY' } },
    limits: {
      pushCooldown: '0s',
      gitCallTimeout: '5s',
      publishTimeout: '20s',
      retry: { initial: '10s', max: '20s' },
    },
  });

function secret(name: string, value: string, time: string) {
  return {
    type: 'MODIFIED',
    resource: 'secrets',
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'shop', creationTimestamp: time },
      type: 'Opaque',
      data: { value: b64(value) },
    },
  };
}

const post = async (...events: unknown[]) =>
  expect((await app.http('POST', '/api/v1/targets/prod/events', { events })).status).toBe(202);

beforeAll(async () => {
  served = await startProxiedRemote();
  ({ remote, proxy } = served);
  app = await startAppHost(config([oldKey.recipient]), {
    KS_SOPS_KEY: 'a-test-derivation-key-of-forty-characters',
  });
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

it('re-encrypts every Secret file and the backlog held through a Git outage for the new recipients only', async () => {
  await post(
    secret('db', VALUES.db, '2025-01-01T00:00:00Z'),
    secret('api', VALUES.api, '2025-01-01T00:00:00Z'),
  );
  await app.advance(10_000);
  const before = (await git(remote, 'rev-parse', 'main')).trim();
  const published = await git(remote, 'show', 'main:clusters/prod/shop/secrets/api.sops.yaml');
  expect(verifySopsDocument(published, dataKeyWithAgeCli(published, oldKey)).data).toEqual({
    value: b64(VALUES.api),
  });

  for (const on of ['refs', 'receive-refs', 'push'] as const)
    proxy.inject({ on, fault: { kind: 'refuse' }, times: 100_000 });
  await post(secret('db', CHANGED_DB, '2025-02-01T00:00:00Z'));
  await app.advance(10_000);
  await post(secret('cache', VALUES.cache, '2025-02-01T00:00:00Z'));
  await app.advance(10_000);
  expect((await app.http('GET', '/api/v1/targets/prod')).body.publication).toMatchObject({
    pendingWrites: 2,
  });

  writeFileSync(join(app.dataDir, 'kubescribe.json'), JSON.stringify(config([newKey.recipient])));
  await app.restart();
  proxy.reset();
  await app.advance(60_000);

  const log = (await git(remote, 'log', '--format=%s', `${before}..main`)).trim().split('\n').reverse();
  expect(log).toHaveLength(3);
  expect(log[0]).toBe('Re-encrypt the Secrets of target prod for 1 age recipient');
  const files = (await git(remote, 'ls-tree', '-r', '--name-only', 'main'))
    .split('\n')
    .filter((path) => path.endsWith('.sops.yaml') && path.includes('/secrets/'));
  expect(files.sort()).toEqual(
    ['api', 'cache', 'db'].map((name) => `clusters/prod/shop/secrets/${name}.sops.yaml`),
  );
  const expected: Record<string, string> = { ...VALUES, db: CHANGED_DB };
  for (const path of files) {
    const file = await git(remote, 'show', `main:${path}`);
    const name = path.split('/').at(-1)!.replace('.sops.yaml', '');
    expect(verifySopsDocument(file, dataKeyWithAgeCli(file, newKey)).data).toEqual({
      value: b64(expected[name]!),
    });
    expect(() => dataKeyWithAgeCli(file, oldKey)).toThrow('not encrypted for this recipient');
    expect(file).not.toContain('kubescribe-data-key');
  }
  expect(parse(await git(remote, 'show', 'main:clusters/prod/.sops.yaml')).creation_rules[0].age).toBe(
    newKey.recipient,
  );
  // two published files by the rotation, two held ones by their own commits; none left behind
  const { encryption } = (await app.http('GET', '/api/v1/targets/prod')).body;
  expect(encryption.counts.kept).toBe(0);
  expect(encryption.counts.rewrapped).toBeGreaterThanOrEqual(4);

  // the data keys kubescribe keeps are wrapped: no byte it wrote holds a value or its base64
  const written: Buffer[] = [Buffer.from(JSON.stringify(app.logs))];
  const visit = (path: string): void => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) visit(child);
      else written.push(readFileSync(child));
    }
  };
  visit(app.dataDir);
  for (const value of [...Object.values(VALUES), CHANGED_DB]) {
    expect(written.filter((bytes) => bytes.includes(value) || bytes.includes(b64(value)))).toHaveLength(0);
  }
});
