// The kube-apiserver audit webhook end to end: the project's audit fixtures (modeled on real
// captures) posted to the app on the embedded host become commits by the audit user.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { loadFixture } from '../unit/resources/load-fixture';

interface EventList {
  items: { stage: string; verb: string; responseStatus?: { code?: number } }[];
}

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-audit-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { window: { idleTimeout: '2s', maxDuration: '1m' } },
      limits: { pushCooldown: '0s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
});

async function postAudit(list: unknown) {
  return app.http('POST', '/api/v1/targets/prod/audit', list);
}

async function head(): Promise<string> {
  return (await git(remote, 'rev-parse', '--verify', '-q', 'main').catch(() => '')).trim();
}

describe('the audit webhook', () => {
  it('commits a patched ConfigMap at its canonical path, authored by the audit user', async () => {
    const answer = await postAudit(loadFixture('audit/configmap-patch.yaml'));
    expect(answer).toMatchObject({ status: 200, body: { accepted: 1, ignored: 0 } });
    await app.advance(5000);
    expect(await git(remote, 'log', '-1', '--format=%an <%ae>|%s', 'main')).toBe(
      'alice@example.com <alice@example.com>|[UPDATE] v1/configmaps shop/app-settings\n',
    );
    const file = await git(remote, 'show', 'main:clusters/prod/shop/configmaps/app-settings.yaml');
    expect(
      file.startsWith(
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-settings\n  namespace: shop\n',
      ),
    ).toBe(true);
    expect(file).not.toMatch(/managedFields|resourceVersion|uid:/);
  });

  it('makes no commit of a dry-run, a failed request or an update that kept its resourceVersion', async () => {
    const before = await head();
    const mixed = loadFixture('audit/mixed-batch.yaml') as EventList;
    const failed = {
      ...mixed,
      items: mixed.items.filter((event) => (event.responseStatus?.code ?? 0) >= 300),
    };
    expect(failed.items.length).toBeGreaterThan(0);
    for (const list of [
      loadFixture('audit/secret-dryrun-patch.yaml'),
      loadFixture('audit/unchanged-rv-update.yaml'),
      failed,
    ]) {
      const answer = await postAudit(list);
      expect(answer).toMatchObject({ status: 200, body: { accepted: 0 } });
      expect(answer.body.ignored).toBeGreaterThan(0);
    }
    await app.advance(10_000);
    expect(await head()).toBe(before);
    expect((await app.http('GET', '/api/v1/targets/prod')).body).toMatchObject({
      publication: { pendingWrites: 0 },
      window: { open: false },
    });
  });

  it('records a mixed batch per author, the impersonated user as the author', async () => {
    const answer = await postAudit(loadFixture('audit/mixed-batch.yaml'));
    expect(answer.status).toBe(200);
    expect(answer.body.accepted).toBeGreaterThan(0);
    await app.advance(10_000);
    const log = await git(remote, 'log', '--format=%an', 'main');
    expect(log).toContain('bob@example.com');
    expect(log).not.toContain('system:admin');
    const files = await git(remote, 'ls-tree', '-r', '--name-only', 'main');
    expect(files).toContain('clusters/prod/shop/apps/deployments/checkout.yaml');
    expect(files).toContain(
      'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/system:aggregate-to-shop.yaml',
    );
    // each change under its own event's user, not the batch's first (authors are worked out once a user)
    const authorOf = async (path: string) =>
      (await git(remote, 'log', '-1', '--format=%an', 'main', '--', path)).trim();
    expect(
      await authorOf(
        'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/system:aggregate-to-shop.yaml',
      ),
    ).toBe('alice@example.com');
    await git(remote, 'fsck', '--strict');
  });
});
