// The read API and the quiet-source alarm end to end: a read-only token lists and reads, never writes;
// a feed silent past its quietAfter raises SourceQuiet on its target until it sends again.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppHost, createBareRepository, git, startAppHost } from '../support/app/app-host';
import { parsePrometheusText, sampleValue } from '../support/metrics/prometheus-text';

const WRITER = { authorization: 'Bearer writer-token-0123456789' };
const READER = { authorization: 'Bearer reader-token-0123456789' };
let app: AppHost;
let remote: string;
let version = 100;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'kubescribe-read-')), 'state.git'));
  const target = (name: string) => ({
    name,
    repository: 'state',
    branch: 'main',
    path: `clusters/${name}`,
    window: { idleTimeout: '5s', maxDuration: '1m' },
  });
  app = await startAppHost(
    {
      repositories: [{ name: 'state', url: remote }],
      targets: [target('prod'), target('staging')],
      sources: [
        { name: 'cluster-a', tokenEnv: 'WRITER_TOKEN', targets: ['prod'], quietAfter: '15m' },
        { name: 'dashboard', tokenEnv: 'READER_TOKEN', targets: ['*'], access: 'read' },
      ],
    },
    { WRITER_TOKEN: 'writer-token-0123456789', READER_TOKEN: 'reader-token-0123456789' },
  );
});

afterAll(async () => {
  await app?.stop();
  rmSync(join(remote, '..'), { recursive: true, force: true });
});

function configMap(name: string) {
  return {
    type: 'ADDED',
    resource: 'configmaps',
    author: { username: 'alice' },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', resourceVersion: String(version++) },
    },
  };
}

function sourceQuiet(body: { conditions: { type: string }[] }) {
  return body.conditions.find((condition) => condition.type === 'SourceQuiet');
}

describe('the read API', () => {
  it('lists the targets each token may read', async () => {
    const all = await app.http('GET', '/api/v1/targets', undefined, READER);
    expect(all.status).toBe(200);
    expect(all.body.targets.map((t: { name: string }) => t.name)).toEqual(['prod', 'staging']);
    expect(all.body.targets[0]).toMatchObject({
      repository: 'state',
      branch: 'main',
      path: 'clusters/prod',
      suspended: false,
      pendingWrites: 0,
      status: '/api/v1/targets/prod',
    });
    const own = await app.http('GET', '/api/v1/targets', undefined, WRITER);
    expect(own.body.targets.map((t: { name: string }) => t.name)).toEqual(['prod']);
    expect((await app.http('GET', '/api/v1/targets')).status).toBe(401);
  });

  it('refuses every write of the read-only token with 403 naming why, and accepts nothing', async () => {
    for (const [method, path, body] of [
      ['POST', '/api/v1/targets/prod/events', { events: [configMap('refused')] }],
      ['POST', '/api/v1/targets/prod/saves', { id: 'release-1' }],
      ['POST', '/api/v1/targets/prod/suspend', undefined],
      ['POST', '/api/v1/targets/prod/refresh', undefined],
    ] as const) {
      const answer = await app.http(method, path, body, READER);
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({
        error: 'forbidden',
        message: expect.stringContaining('read-only'),
      });
    }
    const pending = await app.http('GET', '/api/v1/targets/prod/pending', undefined, READER);
    expect(pending.body).toMatchObject({ total: 0, items: [] });
  });

  it('lists a target’s pending paths a page at a time until they are pushed, and its saves', async () => {
    const posted = await app.http(
      'POST',
      '/api/v1/targets/prod/events',
      { events: [configMap('a'), configMap('b'), configMap('c')] },
      WRITER,
    );
    expect(posted.status).toBe(202);
    expect(
      (
        await app.http(
          'POST',
          '/api/v1/targets/prod/saves',
          { id: 'release-1', author: { username: 'alice' } },
          WRITER,
        )
      ).status,
    ).toBe(202);
    await app.advance(100);
    const first = await app.http('GET', '/api/v1/targets/prod/pending?limit=2', undefined, READER);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, nextCursor: '2' });
    expect(first.body.items).toEqual([
      expect.objectContaining({
        path: 'clusters/prod/shop/configmaps/a.yaml',
        operation: 'upsert',
        writeId: null,
      }),
      expect.objectContaining({ path: 'clusters/prod/shop/configmaps/b.yaml' }),
    ]);
    const second = await app.http('GET', '/api/v1/targets/prod/pending?limit=2&cursor=2', undefined, READER);
    expect(second.body).toMatchObject({ total: 3, nextCursor: null });
    expect(second.body.items.map((item: { path: string }) => item.path)).toEqual([
      'clusters/prod/shop/configmaps/c.yaml',
    ]);
    const held = await app.http('GET', '/api/v1/targets/prod/saves', undefined, READER);
    expect(held.body.items).toEqual([expect.objectContaining({ id: 'release-1', outcome: null })]);
    expect((await app.http('GET', '/api/v1/targets/staging/pending', undefined, READER)).body.total).toBe(0);

    await app.advance(10_000);
    const commit = (await git(remote, 'rev-parse', 'main')).trim();
    expect((await app.http('GET', '/api/v1/targets/prod/pending', undefined, READER)).body.total).toBe(0);
    const saves = await app.http('GET', '/api/v1/targets/prod/saves', undefined, READER);
    expect(saves.body.items).toEqual([
      expect.objectContaining({ id: 'release-1', phase: 'Resolved', outcome: 'Committed', commit }),
    ]);
    const listed = await app.http('GET', '/api/v1/targets', undefined, READER);
    expect(listed.body.targets[0].lastPush).toMatchObject({ commit, url: null });
  });

  it('shows the driver’s recent steps from the host’s history, newest first', async () => {
    const commit = (await git(remote, 'rev-parse', 'main')).trim();
    const answer = await app.http('GET', '/api/v1/targets/prod/history', undefined, READER);
    expect(answer.status).toBe(200);
    const steps: { at: string; kind: string; detail: string }[] = answer.body.steps;
    expect(steps.map((step) => step.at)).toEqual([...steps.map((step) => step.at)].sort().reverse());
    expect(steps).toContainEqual(expect.objectContaining({ kind: 'plan', detail: 'publication #1' }));
    expect(steps).toContainEqual(
      expect.objectContaining({
        kind: 'publication',
        detail: expect.stringMatching(
          new RegExp(`^published, head ${commit.slice(0, 12)} \\(\\d+\\.\\ds\\)$`),
        ),
      }),
    );
    expect(steps).toContainEqual(
      expect.objectContaining({ kind: 'recorded', detail: 'RecordPublicationResult' }),
    );
    expect(steps.map((step) => step.kind)).toEqual(expect.arrayContaining(['timer', 'timer-fired', 'wake']));
    const two = await app.http('GET', '/api/v1/targets/prod/history?limit=2', undefined, READER);
    expect(two.body.steps).toEqual(steps.slice(0, 2));
    expect((await app.http('GET', '/api/v1/targets/prod/history?limit=0', undefined, READER)).status).toBe(
      400,
    );
  });

  it('refuses bad paging with 400 naming the parameter', async () => {
    for (const query of ['limit=0', 'limit=501', 'limit=ten', 'cursor=-1']) {
      const answer = await app.http('GET', `/api/v1/targets/prod/pending?${query}`, undefined, READER);
      expect(answer.status).toBe(400);
      expect(answer.body.issues[0].path).toBe(query.split('=')[0]);
    }
  });
});

describe('the quiet-source alarm', () => {
  it('raises SourceQuiet once the feed sent nothing for quietAfter, and clears when it sends', async () => {
    const fresh = (await app.http('GET', '/api/v1/targets/prod', undefined, READER)).body;
    expect(sourceQuiet(fresh)).toMatchObject({ status: 'False' });
    expect(fresh.quietSources).toEqual([]);

    await app.advance(15 * 60_000 + 1_000);
    const quiet = (await app.http('GET', '/api/v1/targets/prod', undefined, READER)).body;
    expect(sourceQuiet(quiet)).toMatchObject({
      status: 'True',
      reason: 'NothingReceived',
      message: expect.stringContaining('source "cluster-a" has sent nothing since'),
    });
    expect(quiet.quietSources).toEqual([expect.objectContaining({ source: 'cluster-a' })]);
    // The read-only dashboard is not a feed, and staging has none: no alarm there.
    expect(sourceQuiet((await app.http('GET', '/api/v1/targets/staging', undefined, READER)).body)).toBe(
      undefined,
    );
    const listed = await app.http('GET', '/api/v1/targets', undefined, READER);
    expect(listed.body.targets.map((t: { sourceQuiet: boolean }) => t.sourceQuiet)).toEqual([true, false]);

    expect(
      (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('d')] }, WRITER)).status,
    ).toBe(202);
    const cleared = (await app.http('GET', '/api/v1/targets/prod', undefined, READER)).body;
    expect(sourceQuiet(cleared)).toMatchObject({ status: 'False' });
  });

  it('tells the operator once per silence: a warning and the source_quiet gauge, both cleared when it sends', async () => {
    const quietGauge = async () =>
      sampleValue(
        parsePrometheusText(await (await fetch(`${app.host.url}/metrics`)).text()),
        'kubescribe_source_quiet',
        {
          source: 'cluster-a',
        },
      );
    const said = (event: string) => app.logs.filter((record) => record.event === event);
    const wentQuietBefore = said('SourceWentQuiet').length;
    const heardBefore = said('SourceHeardAgain').length;

    // The keeper looks every minute: well past quietAfter, the silence is reported once, not each minute.
    await app.advance(20 * 60_000);
    expect(said('SourceWentQuiet').slice(wentQuietBefore)).toEqual([
      expect.objectContaining({ level: 'warn', source: 'cluster-a' }),
    ]);
    expect(await quietGauge()).toBe(1);

    await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('e')] }, WRITER);
    expect(said('SourceHeardAgain').slice(heardBefore)).toEqual([
      expect.objectContaining({ source: 'cluster-a' }),
    ]);
    expect(await quietGauge()).toBe(0);
  });
});
