// The dashboard in a real headless Chromium (Debian's), against the app on the embedded host with a
// real Git server behind a fault proxy: it asks for a read token, shows a posted change pending and
// then pushed, and an outage's retry time and 429 state. Screenshots go to tests/artifacts/.
/// <reference lib="dom" />
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { dashboardHtml } from '../../shared/app/dashboard/dashboard-page';
import { type AppHost, git, startAppHost } from '../support/app/app-host';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const WRITER = { authorization: 'Bearer writer-token-0123456789' };
let served: ProxiedRemote;
let app: AppHost;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
let version = 1;

beforeAll(async () => {
  served = await startProxiedRemote();
  app = await startAppHost(
    {
      repositories: [{ name: 'state', url: served.url }],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: 'clusters/prod',
          window: { idleTimeout: '5s', maxDuration: '1m' },
          exclude: { fieldManagers: ['kustomize-controller'] },
        },
      ],
      sources: [
        { name: 'cluster-a', tokenEnv: 'WRITER_TOKEN', targets: ['prod'] },
        { name: 'dashboard', tokenEnv: 'READER_TOKEN', targets: ['*'], access: 'read' },
      ],
      limits: { branchBufferBytes: '8Ki', gitCallTimeout: '5s', publishTimeout: '20s' },
    },
    { WRITER_TOKEN: 'writer-token-0123456789', READER_TOKEN: 'reader-token-0123456789' },
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
  await served?.stop();
});

function configMap(name: string, size = 100) {
  return {
    type: 'ADDED',
    resource: 'configmaps',
    author: { username: 'alice' },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', resourceVersion: String(version++) },
      data: { payload: 'x'.repeat(size) },
    },
  };
}

const prod = (selector: string) => page.locator(`[data-target="prod"] ${selector}`);

it('loads without a secret, asks for a read token, then shows the target', async () => {
  await page.goto(`${app.host.url}/api/dashboard?interval=300`);
  await page.locator('#token-form').waitFor({ state: 'visible' });
  await page.fill('#token', 'reader-token-0123456789');
  await page.click('#token-form button[type=submit]');
  await prod('[data-field="branch"]').waitFor();
  expect(await prod('[data-field="repository"]').textContent()).toBe('state');
  expect(await prod('[data-field="path"]').textContent()).toBe('clusters/prod');
  expect(await page.evaluate(() => sessionStorage.getItem('kubescribe.readToken'))).toBe(
    'reader-token-0123456789',
  );
  expect(consoleErrors).toEqual([]);
});

it('shows a posted change pending, then pushed with its commit', async () => {
  expect(
    (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('web')] }, WRITER)).status,
  ).toBe(202);
  // The status routes read through a one-second cache, on the app's virtual clock.
  await app.advance(1_000);
  await expectText(prod('[data-field="window"]'), /alice, 1 change\(s\), closes/);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-pending.png'), fullPage: true });

  await app.advance(6_000);
  const commit = (await git(served.remote, 'rev-parse', 'main')).trim();
  await expectText(prod('[data-field="lastPush"]'), new RegExp(commit.slice(0, 12)));
  await expectText(prod('[data-field="pending"]'), /^0 write\(s\)/);
  await expectText(prod('[data-badge="ready"]'), /Ready/);
  await prod('[data-panel="history"] summary').click();
  await expectText(prod('[data-step="publication"]'), new RegExp(`published, head ${commit.slice(0, 12)}`));
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-pushed.png'), fullPage: true });
  expect(consoleErrors).toEqual([]);
});

it('shows what the target did not record, by reason, with examples', async () => {
  const byFlux = configMap('by-flux');
  Object.assign(byFlux.object.metadata, {
    managedFields: [{ manager: 'kustomize-controller', operation: 'Apply', time: '2026-12-03T10:00:00Z' }],
  });
  const answer = await app.http('POST', '/api/v1/targets/prod/events', { events: [byFlux] }, WRITER);
  expect(answer.body).toMatchObject({ accepted: 0, ignored: 1 });
  await app.advance(1_000);
  await expectText(prod('[data-field="not-recorded"]'), /excluded: 1/);
  await expectText(
    prod('[data-field="not-recorded-recent"]'),
    /excluded, v1 configmaps shop\/by-flux: the field manager matches "kustomize-controller"/,
  );
  expect(consoleErrors).toEqual([]);
});

it('shows an outage: the retry time, the last error and intake paused (429)', async () => {
  served.proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 10_000 });
  served.proxy.inject({ on: 'push', fault: { kind: 'refuse' }, times: 10_000 });
  expect(
    (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('big', 9000)] }, WRITER))
      .status,
  ).toBe(202);
  await app.advance(20_000);
  const refused = await app.http(
    'POST',
    '/api/v1/targets/prod/events',
    { events: [configMap('late')] },
    WRITER,
  );
  expect(refused.status).toBe(429);

  const status = (await app.http('GET', '/api/v1/targets/prod', undefined, WRITER)).body.publication;
  expect(status.retryAt).toEqual(expect.any(String));
  await prod('[data-badge="intake-paused"]').waitFor();
  await expectText(prod('[data-field="intake"]'), /paused \(429/);
  await expectValue(() => prod('[data-field="retryAt"]').getAttribute('data-iso'), status.retryAt);
  await expectText(prod('[data-field="lastError"]'), /.+/);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-outage.png'), fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-phone.png'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  expect(consoleErrors).toEqual([]);
});

it('shows refused credentials as Stalled, and "Retry now" with a write token publishes once they are mended', async () => {
  await page.setViewportSize({ width: 1100, height: 900 });
  served.proxy.reset();
  // what GitHub answers a revoked token (401 with a Basic challenge), on every Git request
  for (const on of ['refs', 'receive-refs', 'push'] as const) {
    served.proxy.inject({
      on,
      fault: {
        kind: 'status',
        status: 401,
        headers: { 'www-authenticate': 'Basic realm="GitHub"' },
        body: 'Invalid username or token. Password authentication is not supported for Git operations.',
      },
      times: 10_000,
    });
  }
  expect((await app.http('POST', '/api/v1/targets/prod/refresh', undefined, WRITER)).status).toBe(202);
  await app.advance(1_000);
  await expectText(prod('[data-badge="stalled"]'), /^Stalled: CredentialsRefused$/);
  expect(await prod('[data-badge="retrying"]').count()).toBe(0);
  await expectText(prod('.conditions'), /Stalled: .*HTTP 401.*refresh/);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-credentials-refused.png'), fullPage: true });

  await prod('[data-action="retry-now"]').click();
  await expectText(prod('[data-field="retry-result"]'), /may only read/);

  served.proxy.reset();
  await page.evaluate(() => sessionStorage.setItem('kubescribe.readToken', 'writer-token-0123456789'));
  await prod('[data-action="retry-now"]').click();
  await expectText(prod('[data-field="retry-result"]'), /^Retry requested\.$/);
  await app.advance(1_000);
  await expectText(prod('[data-badge="ready"]'), /Ready/);
  expect((await git(served.remote, 'ls-tree', '-r', '--name-only', 'main')).split('\n')).toContain(
    'clusters/prod/shop/configmaps/big.yaml',
  );
  // Chromium logs the read token's refused POST itself; nothing else went wrong
  expect(consoleErrors).toEqual([
    'Failed to load resource: the server responded with a status of 403 (Forbidden)',
  ]);
});

it('offers no "Forget token" when the server asks for none (auth disabled)', async () => {
  const other = await browser.newPage();
  // the page as a server with `server.auth: disabled` serves it; the script and style are this server's
  await other.route('**/api/dashboard?*', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: dashboardHtml('disabled') }),
  );
  await other.goto(`${app.host.url}/api/dashboard?interval=300`);
  await other.locator('#forget-token').waitFor({ state: 'attached' });
  expect(await other.locator('#forget-token').isHidden()).toBe(true);
  expect(await page.locator('#forget-token').isVisible()).toBe(true);
  await other.close();
});

async function expectValue(read: () => Promise<string | null>, expected: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  let value: string | null = null;
  while (performance.now() < deadline) {
    value = await read();
    if (value === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(value).toBe(expected);
}

async function expectText(locator: ReturnType<typeof prod>, pattern: RegExp): Promise<void> {
  await locator.first().waitFor();
  // The app's clock (and so `Date` here) is virtual; the page polls in real time.
  const deadline = performance.now() + 15_000;
  let text = '';
  while (performance.now() < deadline) {
    text = (await locator.first().textContent()) ?? '';
    if (pattern.test(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(text).toMatch(pattern);
}
