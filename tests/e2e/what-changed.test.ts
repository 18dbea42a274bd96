// What changed, as the read API shows it, end to end on the embedded host with a local Git
// repository: a target's status lists its latest commits (the commit Git holds, its author, what
// each change did to which object) and its changes accepted and published per minute over the last
// hour, both bounded however much the target records.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ACTIVITY_MINUTES, RECENT_COMMITS_KEPT } from '../../shared/branch/record-activity';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

let app: AppHost;
let remote: string;

const statusSchema = z.object({
  recentCommits: z.array(
    z.strictObject({
      commit: z.string().regex(/^[0-9a-f]{40}$/),
      at: z.string(),
      author: z.string(),
      subject: z.string(),
      url: z.string().nullable(),
      changes: z.array(z.strictObject({ verb: z.string(), object: z.string() })),
      more: z.number(),
    }),
  ),
  perMinute: z.array(z.strictObject({ minute: z.string(), accepted: z.number(), published: z.number() })),
});

const configMap = (name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop' },
  data: { value },
});
const post = (events: object[]) =>
  app.http('POST', '/api/v1/targets/prod/events', {
    events: events.map((event) => ({ ...event, author: { username: 'alice' } })),
  });
const status = async () => {
  const answer = await app.http('GET', '/api/v1/targets/prod');
  expect(answer.status).toBe(200);
  return statusSchema.parse(answer.body);
};
const total = (slots: { accepted: number; published: number }[], series: 'accepted' | 'published') =>
  slots.reduce((sum, slot) => sum + slot[series], 0);

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-changed-')), 'state.git'));
  app = await startAppHost(oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }));
});

afterAll(async () => {
  await app?.stop();
});

describe('what changed', () => {
  it('lists the commits Git holds, newest first, with author, verb and object per change', async () => {
    await post([
      { type: 'ADDED', resource: 'configmaps', object: configMap('web', '1') },
      { type: 'ADDED', resource: 'configmaps', object: configMap('db', '1') },
    ]);
    await app.advance(10_000);
    await post([
      { type: 'MODIFIED', resource: 'configmaps', object: configMap('web', '2') },
      { type: 'DELETED', resource: 'configmaps', object: configMap('db', '1') },
    ]);
    await app.advance(10_000);

    const { recentCommits, perMinute } = await status();
    const heads = (await git(remote, 'rev-list', '-2', 'main')).trim().split('\n');
    expect(recentCommits.map((commit) => commit.commit)).toEqual(heads);
    expect(recentCommits[0]).toMatchObject({
      author: 'alice',
      // a local repository has no forge page
      url: null,
      changes: [
        { verb: 'upsert', object: 'configmaps shop/web' },
        { verb: 'delete', object: 'configmaps shop/db' },
      ],
      more: 0,
    });
    expect(recentCommits[0]!.subject).toBe((await git(remote, 'log', '-1', '--format=%s', 'main')).trim());
    expect(recentCommits[1]!.changes).toEqual([
      { verb: 'upsert', object: 'configmaps shop/web' },
      { verb: 'upsert', object: 'configmaps shop/db' },
    ]);
    // the hour, oldest minute first, ending with the current one
    expect(perMinute).toHaveLength(ACTIVITY_MINUTES);
    expect(Date.parse(perMinute.at(-1)!.minute)).toBe(Math.floor(app.now() / 60_000) * 60_000);
    expect(total(perMinute, 'accepted')).toBe(4);
    expect(total(perMinute, 'published')).toBe(4);
  });

  it('keeps a bounded number of commits and only the last hour of counts', async () => {
    for (let i = 0; i < RECENT_COMMITS_KEPT + 2; i++) {
      await post([{ type: 'MODIFIED', resource: 'configmaps', object: configMap('web', `v${i + 3}`) }]);
      await app.advance(10_000);
    }
    const { recentCommits, perMinute } = await status();
    const heads = (await git(remote, 'rev-list', `-${RECENT_COMMITS_KEPT}`, 'main')).trim().split('\n');
    expect(recentCommits.map((commit) => commit.commit)).toEqual(heads);
    expect(total(perMinute, 'accepted')).toBe(4 + RECENT_COMMITS_KEPT + 2);

    // an hour later nothing is counted any more, and the commits are still listed
    app.tick(ACTIVITY_MINUTES * 60_000);
    await app.advance(1_000);
    const later = await status();
    expect(total(later.perMinute, 'accepted')).toBe(0);
    expect(total(later.perMinute, 'published')).toBe(0);
    expect(later.recentCommits).toHaveLength(RECENT_COMMITS_KEPT);
  });
});
