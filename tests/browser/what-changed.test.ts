// What changed, on the dashboard in a real headless Chromium against the app on the embedded host
// and a local Git repository: each target's latest commits (linked by their SHA, author, what each
// change did to which object) and a small chart of changes accepted and published per minute over
// the last hour. Screenshots go to tests/artifacts/.
/// <reference lib="dom" />
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
let app: AppHost;
let remote: string;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-view-')), 'state.git'));
  app = await startAppHost(oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const configMap = (name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop' },
  data: { value },
});
const post = (username: string, events: object[]) =>
  app.http('POST', '/api/v1/targets/prod/events', {
    events: events.map((event) => ({ ...event, author: { username } })),
  });
const prod = (selector: string) => page.locator(`[data-target="prod"] ${selector}`);

it('shows the latest commits with their author and changes, and the changes per minute', async () => {
  await page.goto(`${app.host.url}/api/dashboard?interval=300`);
  await prod('[data-field="recent-commits"], [data-field="per-minute"]').first().waitFor();

  await post('alice', [
    { type: 'ADDED', resource: 'configmaps', object: configMap('web', '1') },
    { type: 'ADDED', resource: 'configmaps', object: configMap('db', '1') },
  ]);
  await app.advance(10_000);
  // a minute later, so the chart has two minutes with bars
  await app.advance(60_000);
  await post('bob', [
    { type: 'MODIFIED', resource: 'configmaps', object: configMap('web', '2') },
    { type: 'DELETED', resource: 'configmaps', object: configMap('db', '1') },
    { type: 'ADDED', resource: 'configmaps', object: configMap('cache', '1') },
    { type: 'ADDED', resource: 'configmaps', object: configMap('queue', '1') },
  ]);
  await app.advance(10_000);
  const [newest, first] = (await git(remote, 'rev-list', '-2', 'main')).trim().split('\n') as [
    string,
    string,
  ];

  const row = prod(`[data-commit="${newest}"]`);
  await row.waitFor();
  await prod(`[data-commit="${first}"]`).waitFor();
  expect(await row.locator('td').nth(0).textContent()).toContain(newest.slice(0, 12));
  expect(await row.locator('td').nth(1).textContent()).toBe('bob');
  // three changes listed, the fourth counted: the commit body in Git lists them all
  expect(await row.locator('.changes li').allTextContents()).toEqual([
    'upsert configmaps shop/web',
    'delete configmaps shop/db',
    'upsert configmaps shop/cache',
    'and 1 more',
  ]);
  // newest first
  expect(
    await prod('[data-commit]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-commit'))),
  ).toEqual([newest, first]);

  const bars = prod('[data-field="per-minute"] svg rect');
  await prod('[data-field="per-minute"] svg rect.published[data-count="4"]').waitFor();
  const counts = await bars.evaluateAll((rects) =>
    rects.map((rect) => `${rect.getAttribute('class')} ${rect.getAttribute('data-count')}`),
  );
  expect(counts).toEqual(['accepted 2', 'published 2', 'accepted 4', 'published 4']);
  expect(await prod('[data-field="per-minute"] svg').getAttribute('aria-label')).toBe(
    '6 change(s) accepted and 6 published in the last hour; at most 4 a minute',
  );
  await prod('[data-field="per-minute"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-what-changed.png'), fullPage: true });

  // on a phone the chart and the commits stay inside the card
  await page.setViewportSize({ width: 390, height: 900 });
  const card = await prod('').first().boundingBox();
  const chart = await prod('[data-field="per-minute"] svg').boundingBox();
  expect(chart!.x + chart!.width).toBeLessThanOrEqual(card!.x + card!.width);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-what-changed-phone.png'), fullPage: true });
  expect(consoleErrors).toEqual([]);
});
