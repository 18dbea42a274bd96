import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createFilePayloadStore } from '../../../shared/payloads';
import { normalizeAuditEvents, normalizeWatchEvents } from '../../../shared/resources';

const fixtures = join(__dirname, '../../fixtures');
const SECRET_VALUES = [
  'persisted-secret-never-store',
  'cGVyc2lzdGVkLXNlY3JldC1uZXZlci1zdG9yZQ==',
  'dry-run-secret-never-store',
  'ZHJ5LXJ1bi1zZWNyZXQtbmV2ZXItc3RvcmU=',
];

async function fixture(path: string): Promise<unknown> {
  return parse(await readFile(join(fixtures, path), 'utf8'));
}

describe('payloads never hold Secret data', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'kubescribe-no-secrets-'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('given audit and watch payloads mixing Secrets and ConfigMaps when every change is stored then no stored byte is Secret data', async () => {
    const store = createFilePayloadStore({ folder });
    const target = { path: 'clusters/prod' };
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-credentials', namespace: 'shop' },
      data: { password: SECRET_VALUES[1] },
      stringData: { password: SECRET_VALUES[0] },
    };
    const results = [
      normalizeAuditEvents({ body: await fixture('audit/secret-persisted-patch.yaml'), target }),
      normalizeAuditEvents({ body: await fixture('audit/secret-dryrun-patch.yaml'), target }),
      normalizeAuditEvents({ body: await fixture('audit/configmap-patch.yaml'), target }),
      normalizeWatchEvents({
        body: { events: [{ type: 'ADDED', resource: 'secrets', object: secret }] },
        target,
      }),
    ];
    for (const { changes, ignored } of results) {
      for (const change of changes) if (change.content !== undefined) await store.put(change.content);
      // What the HTTP layer may log or answer about ignored items is stored too.
      await store.put(JSON.stringify(ignored));
    }

    const entries = await readdir(folder, { recursive: true, withFileTypes: true });
    const stored = await Promise.all(
      entries
        .filter((entry) => entry.isFile())
        .map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')),
    );
    const everything = stored.join('\n');
    expect(everything).toContain('mode: fast');
    expect(everything).toContain('sensitive-resource');
    for (const value of SECRET_VALUES) expect(everything).not.toContain(value);
  });
});
