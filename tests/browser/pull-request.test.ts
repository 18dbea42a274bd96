// A target that proposes its changes (publish: propose), on the dashboard in a real headless
// Chromium: the app on the embedded host pushes to kubescribe/prod on a real Git server and opens
// the pull request on the GitHub emulator (tests/support/forges); the dashboard links the open pull
// request, then shows it merged. Screenshots go to tests/artifacts/.
/// <reference lib="dom" />
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { type AppHost, git, startAppHost } from '../support/app/app-host';
import { type GitHubEmulator, startGitHubEmulator } from '../support/forges/github-emulator';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const TOKEN = 'ghp_browser-token-0123456789';
let served: ProxiedRemote;
let host: GitHubEmulator;
let app: AppHost;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  served = await startProxiedRemote({ name: 'org/state.git' });
  host = await startGitHubEmulator({ token: TOKEN });
  app = await startAppHost(
    {
      repositories: [
        {
          name: 'state',
          url: served.url,
          auth: { username: 'x-access-token', tokenEnv: 'GIT_TOKEN' },
          forge: { kind: 'github', apiUrl: host.url },
        },
      ],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: 'clusters/prod',
          publish: 'propose',
          window: { idleTimeout: '1s', maxDuration: '5s' },
        },
      ],
      limits: { pushCooldown: '0s', pullRequestPoll: '5s' },
      server: { auth: 'disabled' },
    },
    { GIT_TOKEN: TOKEN },
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
  await host?.stop();
  await served?.stop();
});

const prod = (selector: string) => page.locator(`[data-target="prod"] ${selector}`);

/** Waits for the page's next refresh to show `pattern` (as tests/browser/dashboard.test.ts does). */
async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
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

it('links the open pull request, then shows it merged', async () => {
  const answer = await app.http('POST', '/api/v1/targets/prod/events', {
    events: [
      {
        type: 'ADDED',
        resource: 'configmaps',
        author: { username: 'alice' },
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'web', namespace: 'shop' },
          data: { a: '1' },
        },
      },
    ],
  });
  expect(answer.status).toBe(202);
  await app.advance(5_000);
  const [opened] = host.pulls();
  expect(opened).toMatchObject({ state: 'open', head: 'kubescribe/prod' });

  await page.goto(`${app.host.url}/api/dashboard?interval=300`);
  await expectText(prod('[data-field="pullRequest"]'), new RegExp(`^#${opened!.number} open$`));
  expect(await prod('[data-field="proposeBranch"]').textContent()).toBe('kubescribe/prod');
  expect(await prod('[data-field="branch"]').textContent()).toBe('main');
  expect(await prod('[data-field="pullRequest"] a').getAttribute('href')).toBe(
    `https://github.com/org/state/pull/${opened!.number}`,
  );
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-pull-request.png'), fullPage: true });

  const tree = (await git(served.remote, 'rev-parse', 'kubescribe/prod^{tree}')).trim();
  const merge = (
    await git(served.remote, 'commit-tree', tree, '-p', 'main', '-p', 'kubescribe/prod', '-m', 'Merge')
  ).trim();
  await git(served.remote, 'update-ref', 'refs/heads/main', merge);
  host.merge(opened!.number, merge);
  await app.advance(6_000);
  await expectText(
    prod('[data-field="pullRequest"]'),
    new RegExp(`^none open; last #${opened!.number} merged`),
  );
  expect(consoleErrors).toEqual([]);
});
