// A target with `paths: portable`, end to end on the embedded host: the names Windows and macOS
// refuse (`:`, device names, case twins, 651-character paths) land at paths a checker of Git for
// Windows' and macOS's rules accepts (tests/support/paths/checkout-rules.ts), each read back to its
// object; a native target beside it in the same repository keeps the names as they are.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { decodeSegment } from '../../shared/resources/portable-path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { checkoutProblems } from '../support/paths/checkout-rules';

const RBAC = 'rbac.authorization.k8s.io/v1';
const LONG_GROUP = `${'g'.repeat(62)}.${'h'.repeat(62)}.${'i'.repeat(62)}.example.com`;
const LONG_NAMESPACE = 'n'.repeat(63);

const role = (name: string) => ({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name }, rules: [] });
const configMap = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { k: 'v' },
});
const widget = {
  apiVersion: `${LONG_GROUP}/v1`,
  kind: 'Widget',
  metadata: { name: 'x'.repeat(253), namespace: LONG_NAMESPACE },
  spec: { size: 1 },
};
const events = [
  { type: 'ADDED', resource: 'clusterroles', object: role('system:aggregate-to-admin') },
  { type: 'ADDED', resource: 'clusterroles', object: role('Admin') },
  { type: 'ADDED', resource: 'clusterroles', object: role('admin') },
  { type: 'ADDED', resource: 'configmaps', object: configMap('con', 'aux') },
  { type: 'ADDED', resource: 'configmaps', object: configMap('shop', 'nul.example') },
  { type: 'ADDED', resource: 'r'.repeat(63), object: widget },
];

let app: AppHost;
let remote: string;
const filesUnder = async (folder: string) =>
  (await git(remote, 'ls-tree', '-r', '--name-only', 'main', folder)).trim().split('\n');

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-portable-')), 'state.git'));
  const config = oneTargetConfig({
    url: remote,
    target: { path: 'clusters/portable', paths: 'portable', prune: 'Always' },
    limits: { pushCooldown: '0s' },
  }) as { targets: object[] };
  config.targets.push({ name: 'native', repository: 'state', branch: 'main', path: 'clusters/native' });
  app = await startAppHost(config);
});

afterAll(async () => {
  await app?.stop();
});

describe('a target with portable paths', () => {
  it('writes every name at a path Windows and macOS check out, and the native target does not', async () => {
    for (const target of ['prod', 'native'])
      expect(await app.http('POST', `/api/v1/targets/${target}/events`, { events })).toMatchObject({
        status: 202,
        body: { accepted: events.length },
      });
    await app.advance(10_000);

    const portable = await filesUnder('clusters/portable');
    expect(portable).toHaveLength(events.length);
    expect(portable).toEqual(
      expect.arrayContaining([
        'clusters/portable/_cluster/rbac.authorization.k8s.io/clusterroles/system%3aaggregate-to-admin.yaml',
        'clusters/portable/_cluster/rbac.authorization.k8s.io/clusterroles/%41dmin.yaml',
        'clusters/portable/_cluster/rbac.authorization.k8s.io/clusterroles/admin.yaml',
        'clusters/portable/%63on/configmaps/%61ux.yaml',
        'clusters/portable/shop/configmaps/%6eul.example.yaml',
      ]),
    );
    expect(checkoutProblems(portable)).toEqual([]);

    // the checker refuses what native paths hold: it is the checker that passes the portable ones
    const native = await filesUnder('clusters/native');
    expect(native).toHaveLength(events.length);
    expect(checkoutProblems(native)).toEqual([
      expect.stringContaining('has a character Windows refuses'),
      expect.stringContaining('"con" is a Windows device name'),
      expect.stringContaining('characters in C:\\'),
      expect.stringContaining('"nul.example.yaml" is a Windows device name'),
      expect.stringMatching(
        /Admin\.yaml and .*admin\.yaml are one name|admin\.yaml and .*Admin\.yaml are one name/,
      ),
    ]);
  });

  it('reads each portable path back to the object in its file', async () => {
    for (const path of await filesUnder('clusters/portable')) {
      const object = parse(await git(remote, 'show', `main:${path}`)) as {
        metadata: { name: string; namespace?: string };
      };
      const segments = path.split('/').slice(2);
      const name = decodeSegment(segments.at(-1)!.replace(/\.yaml$/, ''));
      // a shortened name (the 253-character one) is read from its file; every other decodes to it
      if (name !== undefined) expect(name).toBe(object.metadata.name);
      else expect(object.metadata.name).toBe('x'.repeat(253));
      const namespace = decodeSegment(segments[0]!);
      if (segments[0] !== '_cluster' && namespace !== undefined)
        expect(namespace).toBe(object.metadata.namespace);
    }
  });

  it('lists the objects by their names in the commit body, and sweeps a device-named namespace', async () => {
    const body = await git(remote, 'log', '--format=%B', 'main');
    expect(body).toContain('create clusterroles.rbac.authorization.k8s.io system:aggregate-to-admin\n');
    expect(body).toContain('create configmaps con/aux\n');

    const sweep = await app.http('POST', '/api/v1/targets/prod/snapshots', {
      scope: { group: '', resource: 'configmaps', namespace: 'con' },
      revision: '7',
      objects: [],
    });
    expect(sweep.status).toBe(202);
    await app.advance(10_000);
    const after = await filesUnder('clusters/portable');
    expect(after).not.toContain('clusters/portable/%63on/configmaps/%61ux.yaml');
    expect(after).toHaveLength(events.length - 1);
    await git(remote, 'fsck', '--strict');
  });
});
