// What one valid token can reach, end to end on the embedded host: a save may name only its own
// source's cluster for its CommitRequest status (else kubescribe would write into another cluster
// with that cluster's credentials), and `/metrics` can be put behind a source's token.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, startAppHost } from '../support/app/app-host';

const BETA = { authorization: 'Bearer beta-token-0123456789' };
const READER = { authorization: 'Bearer reader-token-0123456789' };
let app: AppHost;
let dataDir: string;

beforeAll(async () => {
  const remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-bounds-')), 'state.git'));
  // a data folder an earlier release (or a careless mkdir) left readable by everyone
  dataDir = join(mkdtempSync(join(tmpdir(), 'ks-bounds-data-')), 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  app = await startAppHost(
    {
      repositories: [{ name: 'state', url: remote }],
      targets: [
        { name: 'alpha', repository: 'state', branch: 'main', path: 'clusters/alpha' },
        { name: 'beta', repository: 'state', branch: 'main', path: 'clusters/beta' },
      ],
      sources: [
        { name: 'alpha', tokenEnv: 'ALPHA_TOKEN', targets: ['alpha'] },
        { name: 'beta', tokenEnv: 'BETA_TOKEN', targets: ['beta'] },
        { name: 'monitoring', tokenEnv: 'READER_TOKEN', targets: ['*'], access: 'read' },
      ],
      server: { metricsAuth: 'token' },
    },
    {
      ALPHA_TOKEN: 'alpha-token-0123456789',
      BETA_TOKEN: 'beta-token-0123456789',
      READER_TOKEN: 'reader-token-0123456789',
    },
    { dataDir },
  );
});

afterAll(async () => {
  await app?.stop();
});

const save = (id: string, cluster: string) => ({
  id,
  message: 'Release notes',
  commitRequest: { cluster, namespace: 'shop', name: id },
});

describe('a save’s CommitRequest', () => {
  it('may not name another source’s cluster: 403, and no save is registered', async () => {
    const refused = await app.http('POST', '/api/v1/targets/beta/saves', save('foreign', 'alpha'), BETA);
    expect(refused).toMatchObject({
      status: 403,
      body: { error: 'forbidden', message: expect.stringContaining('only its own cluster') },
    });
    await app.advance(1_000);
    expect((await app.http('GET', '/api/v1/targets/beta/saves/foreign', undefined, BETA)).status).toBe(404);
  });

  it('may name the source’s own cluster', async () => {
    const taken = await app.http('POST', '/api/v1/targets/beta/saves', save('own', 'beta'), BETA);
    expect(taken.status).toBe(202);
    await app.advance(1_000);
    expect(await app.http('GET', '/api/v1/targets/beta/saves/own', undefined, BETA)).toMatchObject({
      status: 200,
      body: { id: 'own', request: { cluster: 'beta', namespace: 'shop', name: 'own' } },
    });
  });
});

describe('a save without an id', () => {
  it('is told the id is required, not a schema message', async () => {
    const refused = await app.http('POST', '/api/v1/targets/beta/saves', { message: 'Release notes' }, BETA);
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error: 'invalid-input',
        issues: [{ path: 'id', message: expect.stringMatching(/^is required/) }],
      },
    });
  });
});

describe('/metrics with server.metricsAuth: token', () => {
  it('refuses a scrape without a source’s token, or with another token', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      const refused = await fetch(`${app.host.url}/metrics`, { headers });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
    }
  });

  it('answers a read-only token', async () => {
    const scraped = await fetch(`${app.host.url}/metrics`, { headers: READER });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('kubescribe_branch_info');
  });

  it('leaves the liveness probe open', async () => {
    expect((await app.http('GET', '/api/healthz')).status).toBe(200);
  });
});

describe('the data folder', () => {
  it('is private to kubescribe’s user (0700), and so are the files it writes there (0600)', async () => {
    const posted = await app.http(
      'POST',
      '/api/v1/targets/beta/events',
      {
        events: [
          {
            type: 'ADDED',
            resource: 'configmaps',
            object: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'web', namespace: 'shop' },
              data: { a: 'b' },
            },
          },
        ],
      },
      BETA,
    );
    expect(posted.status).toBe(202);
    await app.advance(10_000);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    // the test's own configuration file aside, everything the host and the app wrote
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== 'kubescribe.json')
      .map((entry) => join(entry.parentPath, entry.name));
    expect(files.some((file) => file.includes('sha256'))).toBe(true);
    expect(files.some((file) => file.endsWith('.sqlite') || file.endsWith('.db'))).toBe(true);
    const open = files.filter((file) => (statSync(file).mode & 0o077) !== 0);
    expect(open).toEqual([]);
  });
});
