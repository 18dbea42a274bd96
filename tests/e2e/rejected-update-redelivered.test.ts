// An UPDATE refused with 429 while Git is down and intake paused, then posted again by its sender
// once Git returned: it is recorded once, at its latest content, and nothing accepted is lost.
// The sender behaves as the apiserver's audit webhook does (it retries a batch the app refused).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import type { ProxiedRemote } from '../support/git/start-proxied-remote';
import { startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;

beforeAll(async () => {
  served = await startProxiedRemote();
  app = await startAppHost(
    oneTargetConfig({
      url: `${served.proxy.url}/state.git`,
      limits: { branchBufferBytes: '32Ki', gitCallTimeout: '5s', publishTimeout: '20s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

/** One audit event: `name` updated by alice to `value` (a ConfigMap of about `size` bytes). */
function updated(name: string, value: string, resourceVersion: number, size = 100) {
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop', resourceVersion: String(resourceVersion) },
    data: { value, padding: 'x'.repeat(size) },
  };
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'EventList',
    items: [
      {
        auditID: `${name}-${resourceVersion}`,
        stage: 'ResponseComplete',
        verb: 'update',
        requestURI: `/api/v1/namespaces/shop/configmaps/${name}`,
        user: { username: 'alice' },
        objectRef: { resource: 'configmaps', namespace: 'shop', name, apiVersion: 'v1' },
        responseStatus: { code: 200 },
        responseObject: object,
      },
    ],
  };
}

it('records a refused UPDATE once, with its content, when its sender posts it again after the outage', async () => {
  served.proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 10_000 });
  let refused: { body: unknown; status: number } | undefined;
  let version = 100;
  for (let index = 0; index < 40 && !refused; index++) {
    const answer = await app.http(
      'POST',
      '/api/v1/targets/prod/audit',
      updated(`filler-${index}`, 'v', version++, 6 * 1024),
    );
    if (answer.status !== 200) refused = answer;
    await app.advance(1000);
  }
  expect(refused?.status).toBe(429);

  const update = updated('settings', 'after', version++);
  const whilePaused = await app.http('POST', '/api/v1/targets/prod/audit', update);
  expect(whilePaused.status).toBe(429);

  served.proxy.reset();
  await app.advance(6 * 60_000);
  // The sender posts the refused batch again, as the audit webhook retries it.
  expect((await app.http('POST', '/api/v1/targets/prod/audit', update)).status).toBe(200);
  await app.advance(10_000);

  const file = await git(served.remote, 'show', 'main:clusters/prod/shop/configmaps/settings.yaml');
  expect(file).toContain('value: after');
  const touching = await git(
    served.remote,
    'log',
    '--format=%H',
    'main',
    '--',
    'clusters/prod/shop/configmaps/settings.yaml',
  );
  expect(touching.trim().split('\n')).toHaveLength(1);
  const status = (await app.http('GET', '/api/v1/targets/prod')).body.publication;
  expect(status).toMatchObject({ pendingWrites: 0, intakePaused: false });
});
