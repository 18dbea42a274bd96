// Changes held for attribution, on the dashboard in a real headless Chromium against the app on the
// embedded host: a target recorded by the forwarder and an Event Hubs feed holds the forwarder's
// change (a watch object names no user) for its audit record, and the card says so (how many,
// bytes, the oldest, when the wait releases them) until the wait commits it unattributed.
// Screenshots go to tests/artifacts/.
/// <reference lib="dom" />
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type AppHost, createBareRepository, oneTargetConfig, startAppHost } from '../support/app/app-host';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const HUB = 'aks-audit';
let app: AppHost;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  const remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-held-')), 'state.git'));
  app = await startAppHost(
    {
      ...oneTargetConfig({
        url: remote,
        target: { window: { idleTimeout: '2s', maxDuration: '1m' }, attributionWait: '1m' },
        limits: { pushCooldown: '0s' },
      }),
      sources: [
        {
          name: 'aks-prod',
          kind: 'eventHub',
          eventHub: { hub: HUB, consumerGroup: 'kubescribe' },
          targets: ['prod'],
        },
      ],
    },
    { KUBESCRIBE_EVENTHUB_NAME: HUB, KUBESCRIBE_EVENTHUB_CONSUMER_GROUP: 'kubescribe' },
  );
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const prod = (selector: string) => page.locator(`[data-target="prod"] ${selector}`);

it('shows the changes held for their audit record, and when the wait releases them, until it does', async () => {
  await page.goto(`${app.host.url}/api/dashboard?interval=300`);
  await prod('[data-field="pending"]').waitFor();
  expect(await prod('[data-field="held"]').count()).toBe(0);

  // the forwarder's watch event: the object as the apiserver serves it (uid, resourceVersion), no user
  const posted = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [
      {
        type: 'ADDED',
        resource: 'configmaps',
        object: {
          kind: 'ConfigMap',
          apiVersion: 'v1',
          metadata: { name: 'settings', namespace: 'shop', uid: 'uid-settings', resourceVersion: '100' },
          data: { mode: 'fast' },
        },
      },
    ],
  });
  expect(posted.status).toBe(202);
  await app.advance(5_000);
  const held = (await app.http('GET', '/api/v1/targets/prod')).body.heldForAttribution;
  expect(held.count).toBe(1);

  const field = prod('[data-field="held"]');
  await field
    .filter({ hasText: /^1 change\(s\), \d+ B, oldest .+; released unattributed .+ \(.+\)$/ })
    .waitFor();
  expect(await field.getAttribute('data-iso')).toBe(held.releasesAt);
  await field.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-held-for-attribution.png'), fullPage: true });

  // past the wait, committed unattributed: nothing is held any more
  await app.advance(60_000);
  await field.waitFor({ state: 'detached' });
  await prod('[data-field="lastPush"]').filter({ hasText: / at / }).waitFor();
  expect(consoleErrors).toEqual([]);
});
