// The promise of docs/connect-aks.md, with the two configurations that page shows (read from the
// page itself): the forwarder's snapshot makes the target's folder match the cluster, so an object
// deleted while no forwarder ran is gone from Git after the next pod's first snapshot. The
// forwarder's cursor file is on an emptyDir (deploy/forwarder/deployment.yaml): a new pod has none.
// Kubernetes is the protocol-level fake API server; the app runs on the embedded host.
jest.mock('@azure/functions-core', () => jest.requireActual('../../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import type { ForwarderConfigInput } from '../../../shared/forwarder/config';
import { type AppHost, createBareRepository, git, startAppHost } from '../../support/app/app-host';
import type { KubeObject, ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import { fakeConnection, type RunningForwarder, startForwarder } from './support/forwarder-harness';
import { eventually } from './support/manual-delay';

const CONFIGMAPS: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  statusSubresource: false,
};
const DEPLOYMENTS: ResourceType = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  statusSubresource: true,
};
const KUBE_TOKEN = 'kube-token-resync-5b0c';
const SOURCE_TOKEN = 'aks-prod-token-0123456789abcdef0123456789';

/** The YAML snippets of docs/connect-aks.md, in page order. */
function pageSnippets(): Record<string, unknown>[] {
  const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'connect-aks.md'), 'utf8');
  return [...page.matchAll(/^```yaml\n([\s\S]*?)^```/gm)].map(
    (match) => parseAllDocuments(match[1]!)[0]!.toJS() as Record<string, unknown>,
  );
}

const serviceConfigSchema = z.looseObject({
  repositories: z.array(z.looseObject({ url: z.string() })).length(1),
  targets: z.array(z.looseObject({ name: z.string(), path: z.string() })).length(1),
  sources: z.array(z.looseObject({ tokenEnv: z.string() })).length(1),
});
const forwarderConfigSchema = z.looseObject({
  kubescribe: z.looseObject({ url: z.string(), target: z.string() }),
  cursorFile: z.string(),
});

describe('the forwarder resyncing a target configured as docs/connect-aks.md shows', () => {
  const [serviceSnippet, forwarderSnippet] = pageSnippets();
  const service = serviceConfigSchema.parse(serviceSnippet);
  const documented = forwarderConfigSchema.parse(forwarderSnippet);
  const folder = service.targets[0]!.path;
  let app: AppHost;
  let kube: FakeKubeApi;
  let remote: string;
  let dir: string;
  let forwarder: RunningForwarder | undefined;

  /** A forwarder pod: the page's configuration, pointed at this app, with a fresh emptyDir for its cursors. */
  const startPod = (pod: string): RunningForwarder => {
    const config = {
      ...documented,
      kubescribe: { ...documented.kubescribe, url: app.host.url },
      cursorFile: join(dir, pod, 'cursors.json'),
    } as ForwarderConfigInput;
    forwarder = startForwarder({
      config,
      connection: fakeConnection(kube.url, KUBE_TOKEN),
      token: SOURCE_TOKEN,
    });
    return forwarder;
  };
  const snapshotsCompleted = (f: RunningForwarder) =>
    f.logs.filter((line) => line.event === 'SnapshotCompleted').length;
  const files = async () => (await git(remote, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ks-resync-'));
    remote = await createBareRepository(join(dir, 'platform-state.git'));
    kube = await startFakeKubeApi({ types: [CONFIGMAPS, DEPLOYMENTS], bearerToken: KUBE_TOKEN });
    const { auth: _remoteAuth, ...repository } = service.repositories[0]!;
    // The page's service configuration as written, on a local bare repository (no Git credentials).
    app = await startAppHost(
      { ...service, repositories: [{ ...repository, url: remote }] },
      { [service.sources[0]!.tokenEnv]: SOURCE_TOKEN },
    );
  });

  afterAll(async () => {
    await forwarder?.stop();
    await kube?.close();
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes from Git, at the next pod’s first snapshot, an object deleted while no forwarder ran', async () => {
    const configMap = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
      data: { a: 'b' },
    });
    for (const name of ['hello', 'stale']) kube.create(CONFIGMAPS, configMap(name));
    kube.create(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2 },
    });
    const first = startPod('pod-1');
    await eventually(() => snapshotsCompleted(first) === 2, 'the first pod’s snapshots');
    await app.advance(70_000);
    expect(await files()).toEqual([
      `${folder}/default/apps/deployments/web.yaml`,
      `${folder}/default/configmaps/hello.yaml`,
      `${folder}/default/configmaps/stale.yaml`,
    ]);

    await first.stop();
    kube.delete(CONFIGMAPS, 'default', 'stale');
    const second = startPod('pod-2');
    await eventually(() => snapshotsCompleted(second) === 2, 'the second pod’s snapshots');
    await app.advance(70_000);

    expect(await files()).toEqual([
      `${folder}/default/apps/deployments/web.yaml`,
      `${folder}/default/configmaps/hello.yaml`,
    ]);
  });
});
